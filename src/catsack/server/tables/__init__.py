"""The live tables: the process's :class:`~catsack.server.tables.hub.Hub`, the parts it coordinates, and
the modules the tables in play run on.

::

    web -> people -> tables -> storage
                       hub: loading, seating, connections, moves, turns, leasing, relay, housekeeping
                       live (tables, connections, frames), bus (the events), writer, loops, runtime
                       leases, fanout (Redis), thinking, think_worker, analysis_worker, turnbased,
                       pending (waiting hellos), retention, lobby

Each part holds one concern of the tables in play and reaches the others only through the hub
(:class:`~catsack.server.tables.coordinator.Coordinator`, the steps they ask of one another):

- :mod:`~catsack.server.tables.loading`: a table loaded from the database, and caught up with it;
- :mod:`~catsack.server.tables.seating`: new tables, seats and their tokens, a bot taking a seat;
- :mod:`~catsack.server.tables.connections`: connections attached and detached, and which seats are connected;
- :mod:`~catsack.server.tables.moves`: a move checked, committed, then applied and broadcast;
- :mod:`~catsack.server.tables.turns`: what moves a game on by itself (bots, turn timers and clocks), and hints;
- :mod:`~catsack.server.tables.leasing`: which process drives a table (leases, adoption, hand-over);
- :mod:`~catsack.server.tables.relay`: the messages of the other processes (Redis), applied in order;
- :mod:`~catsack.server.tables.housekeeping`: the sweep (grace periods, eviction, version gaps, retention).

They publish what happened on :mod:`catsack.server.tables.bus` and never import the people's modules.
"""
