"""The messages between processes, each a model defined once: runtime messages (page ↔ service worker ↔
Python), the events Python emits, and how an event is emitted. The build writes their JavaScript names."""
