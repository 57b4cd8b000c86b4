"""Bot accounts: an account created by a person for a program, with a hashed API token
(``catsack.server.people.botaccounts``).

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision: str | None = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_accounts",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("owner_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("revoked", sa.Float, nullable=True),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_bot_accounts_owner_id", "bot_accounts", ["owner_id"])


def downgrade() -> None:
    op.drop_index("ix_bot_accounts_owner_id", "bot_accounts")
    op.drop_table("bot_accounts")
