"""Storage: the database the server keeps (tables, seats, moves, accounts' names and tokens, analyses
and training positions), the bottom room with the process's settings.

::

    web -> people -> tables -> storage
                                 schema           the store's tables (games, seats, moves, leases, chat)
                                 store            tables, seats and moves; retention's deletes
                                 leases           which process drives which table (store.leases)
                                 tokens, names    seat tokens and account names
                                 analysis_store   computed analyses
                                 training_store   training positions

The schema's migrations live in :mod:`catsack.server.migrations`. Nothing here imports a room above.
"""
