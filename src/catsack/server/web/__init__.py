"""The web: the ASGI application and what wraps every request, the top room.

::

    web  app (create_app: routers, lifespan, error handlers), headers (security headers),
      |  problems (error answers); the routes are catsack.server.routes, one router per concern
      v
    people -> tables -> storage

Nothing below imports this package. The request guards shared with the rooms below
(:mod:`catsack.server.limits`, :mod:`catsack.server.budgets`, :mod:`catsack.server.validate`,
:mod:`catsack.server.metrics`) sit beside :mod:`catsack.server.settings` at the bottom.
"""
