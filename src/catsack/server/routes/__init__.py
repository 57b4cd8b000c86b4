"""The server's routers, one per concern; :func:`catsack.server.app.create_app` includes them."""
