"""The core as the extension runs it: the bridge JavaScript calls, the facade for runtime messages, config,
the catalog of tools that exist right now."""
