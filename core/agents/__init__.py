"""Local agents in the browser: who each is, their tabs, their calls checked and run through the gateway, the
person's controls over them."""
