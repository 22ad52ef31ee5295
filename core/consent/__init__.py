"""Consent rules: the person's questions (board), the last check before the page, where an agent's tab
may go."""
