"""Storage: the database the server keeps (tables, seats, moves, accounts' names and tokens, analyses
and training positions), the bottom room with the process's settings.

::

    web -> people -> tables -> storage
                                 store            tables, seats and moves; leases; retention's deletes
                                 tokens, names    seat tokens and account names
                                 analysis_store   computed analyses
                                 training_store   training positions

The schema's migrations live in :mod:`catsack.server.migrations`. Nothing here imports a room above.
"""
