"""The tool router, registry, payloads, specs and handlers (codex tools/): a model's call in, the item that
goes back out."""
