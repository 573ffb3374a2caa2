"""Server-rendered HTML pages, usable without JavaScript: the router, the view models it fills and the templates."""
