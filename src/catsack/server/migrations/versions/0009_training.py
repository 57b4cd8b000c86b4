"""Training: the positions players retry, from the mistakes the analysis found.

Revision ID: 0009
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "training_positions",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("source", sa.String(8), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("ply", sa.Integer, nullable=False),
        sa.Column("user_id", sa.Integer, nullable=True),
        sa.Column("theme", sa.String(12), nullable=False),
        sa.Column("class", sa.String(12), nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("phase", sa.String(12), nullable=False),
        sa.Column("view", sa.Text, nullable=False),
        sa.Column("names", sa.Text, nullable=False),
        sa.Column("decision", sa.Text, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.UniqueConstraint("game", "seat", "ply", name="uq_training_game_seat_ply"),
    )
    op.create_index("ix_training_user", "training_positions", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_training_user", "training_positions")
    op.drop_table("training_positions")
