"""Tool handlers, one module each."""
