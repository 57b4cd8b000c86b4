"""Several processes: table leases (who drives a table's bots and timers) and seat presence.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("holder", sa.String(32), nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    # A nullable column: SQLite adds it in place, no table rebuild.
    op.add_column("seats", sa.Column("seen", sa.Float, nullable=True))


def downgrade() -> None:
    op.drop_column("seats", "seen")
    op.drop_table("table_leases")
