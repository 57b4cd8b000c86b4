"""Alembic's environment for catsack: migrations run on a connection the caller opened.

:mod:`catsack.server.migrations` passes its connection in ``config.attributes``; there is
no ``alembic.ini`` and no URL here (``catsack db upgrade`` and the server's start-up use it).
"""

from __future__ import annotations

from alembic import context

from catsack.server.storage.store import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run catsack's migrations through 'catsack db upgrade', not the alembic command")
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
