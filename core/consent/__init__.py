"""Consent rules: the person's questions, the words they are asked in, the last check before the page,
where an agent's tab may go."""
