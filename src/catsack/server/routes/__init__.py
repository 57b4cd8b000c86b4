"""The server's routers, one per concern; :func:`catsack.server.web.app.create_app` includes them."""
