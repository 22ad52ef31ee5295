"""Web URLs as Chrome reads them: the site of a URL, IP and IDNA hosts, which URLs a model may open."""
