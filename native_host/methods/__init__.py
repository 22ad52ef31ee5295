"""The JSON-RPC methods the browser calls (contract §4): the method table, the request lifecycle, listings
and server administration."""
