"""Accounts: each name's look-alike key (``catsack.server.storage.names.skeleton``), so that a guest's name that
reads like an account's (a Cyrillic or Greek letter in place of a Latin one) is refused. Existing
accounts get theirs here.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from catsack.server.storage.names import skeleton

revision = "0013"
down_revision: str | None = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("name_skeleton", sa.String(64), nullable=True))
        batch.create_index("ix_users_name_skeleton", ["name_skeleton"])
    users = sa.table("users", sa.column("id", sa.Integer), sa.column("name", sa.String), sa.column("name_skeleton"))
    conn = op.get_bind()
    for row in conn.execute(sa.select(users.c.id, users.c.name)).all():
        conn.execute(users.update().where(users.c.id == row.id).values(name_skeleton=skeleton(row.name)))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_index("ix_users_name_skeleton")
        batch.drop_column("name_skeleton")
