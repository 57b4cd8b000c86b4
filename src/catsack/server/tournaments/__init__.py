"""Tournaments for people: Swiss rounds at tables of 3 to 5, with an option of duplicate deals, and arenas.

- :mod:`~catsack.server.tournaments.swiss`: seating, scoring and standings (pure rules).
- :mod:`~catsack.server.tournaments.arena`: an arena's queue, points, streaks and standings (pure rules).
- :mod:`~catsack.server.tournaments.model`: the tournament, its entries, tables and results in the database.
- :mod:`~catsack.server.tournaments.runner`: the server running them (rounds as ordinary tables).

docs/tournaments.md describes them for players and operators.
"""
