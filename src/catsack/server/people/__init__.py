"""The people: what the server keeps of and does for the persons (and bot accounts) who play.

::

    web (app, routes)
      |
    people ---- accounts, friends, reputation, fairplay, chat, social, training
      |         ratings, rematch, gamesfeed, gameaccess (who may read a game), gamedb, explorer, replay
      |         mail, push, reminders, vacation, analysis_jobs
      |         botaccounts, botarena (bot accounts playing seats through the hub's public path)
      |         (and catsack.server.tournaments)
      v
    tables (catsack.server.tables) ---> storage (catsack.server.storage), settings

The people hear of the tables through the events the tables publish (:mod:`catsack.server.tables.bus`)
and act on them through the hub's public methods; the tables never import this package.
"""
