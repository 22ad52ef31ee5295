"""The core as the extension runs it: the bridge JavaScript calls, the facade for runtime messages, config,
events, history."""
