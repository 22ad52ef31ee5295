"""The host process: native-messaging frames and JSON-RPC messages on stdio, the reader thread and the event
loop thread, requests to the browser, log files, and ending server process trees."""
