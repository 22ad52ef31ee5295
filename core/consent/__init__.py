"""Consent rules: what is asked before an agent acts, the last check at the page, where an agent's tab may
go."""
