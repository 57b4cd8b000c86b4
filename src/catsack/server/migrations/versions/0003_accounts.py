"""Accounts, sessions, seats bound to accounts, ratings and chat.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("name_key", sa.String(64), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("deleted", sa.Boolean, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_table(
        "seat_users",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
    )
    op.create_table(
        "ratings",
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Float, nullable=False),
    )
    op.create_table(
        "rating_history",
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("margin", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "rated_games",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "chat",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("text", sa.String(400), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )


def downgrade() -> None:
    for name in ("chat", "rated_games", "rating_history", "ratings", "seat_users", "sessions", "users"):
        op.drop_table(name)
