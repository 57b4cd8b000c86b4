"""Several processes: a heartbeat row per server process, so that a table's lease is valid while its
holder lives (one write per process, not one per table) and a dead holder is noticed in seconds.

Revision ID: 0005
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_processes",
        sa.Column("holder", sa.String(32), primary_key=True),
        sa.Column("expires", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_processes")
