// Options page (filled in by the browser-tools issue).
