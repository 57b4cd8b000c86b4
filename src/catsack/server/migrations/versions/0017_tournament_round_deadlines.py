"""Turn-based tournaments: each round's deadline, kept with its tables (``tournament_tables.deadline``).

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision: str | None = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournament_tables") as batch:
        batch.add_column(sa.Column("deadline", sa.Float, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournament_tables") as batch:
        batch.drop_column("deadline")
