"""The config and where things live: loading and writing the TOML config, paths, file writing, secrets kept
out of output, and who the host is."""
