"""The web as Tabgate reads it: URLs and sites as Chrome reads them, which URLs a model may open, page text
fenced as data."""
