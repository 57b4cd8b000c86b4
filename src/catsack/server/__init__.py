"""Online tables: a FastAPI/uvicorn server, SQL persistence, Redis fan-out and a browser client.

Import :func:`catsack.server.web.app.create_app` to embed it; ``catsack serve``
runs it. Needs the ``server`` extra. The rules core never imports this package.
"""
