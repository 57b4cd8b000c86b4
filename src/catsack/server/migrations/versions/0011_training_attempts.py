"""Training: which account or guest has had an answer to a position counted (one each).

Revision ID: 0011
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "training_attempts",
        sa.Column("position_id", sa.String(16), nullable=False),
        sa.Column("who", sa.String(40), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("position_id", "who", name="pk_training_attempts"),
    )


def downgrade() -> None:
    op.drop_table("training_attempts")
