"""Setting up: installing the host manifest, connecting agents, doctor, importing configs, the admin CLI."""
