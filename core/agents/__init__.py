"""Local agents in the browser: who each is, its tabs, its calls through the gateway, what the person sees of
them."""
