"""Play over days: turn-based clocks, e-mail (addresses, a send queue, password resets), follows,
blocks and challenges, and when an account was last seen.

Revision ID: 0008
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("to_move", sa.Integer, nullable=True))
        batch.add_column(sa.Column("clock", sa.Text, nullable=True))
    op.create_index("ix_tables_status_deadline", "tables", ["status", "deadline"])
    op.create_table(
        "emails",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("address", sa.String(254), nullable=False),
        sa.Column("address_key", sa.String(254), nullable=False, index=True),
        sa.Column("verified", sa.Boolean, nullable=False),
        sa.Column("verify_hash", sa.String(64), nullable=True),
        sa.Column("verify_expires", sa.Float, nullable=True),
        sa.Column("prefs", sa.Text, nullable=False),
        sa.Column("unsubscribe", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "mail_queue",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True, index=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("address", sa.String(254), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("send_after", sa.Float, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("claimed", sa.Float, nullable=True),
        sa.Column("sent", sa.Float, nullable=True),
        sa.Column("error", sa.String(200), nullable=True),
        sa.Column("message_id", sa.String(120), nullable=False),
    )
    op.create_index("ix_mail_queue_status_send_after", "mail_queue", ["status", "send_after"])
    op.create_table(
        "password_resets",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
        sa.Column("used", sa.Boolean, nullable=False),
    )
    op.create_table(
        "follows",
        sa.Column("follower_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("followed_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True, index=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "blocks",
        sa.Column("blocker_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("blocked_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True, index=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("from_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_table(
        "challenge_invites",
        sa.Column("challenge_id", sa.String(16), sa.ForeignKey("challenges.id"), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True, index=True),
        sa.Column("answer", sa.String(8), nullable=True),
        sa.Column("answered", sa.Float, nullable=True),
    )
    op.create_table(
        "user_seen",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("seen", sa.Float, nullable=False),
    )


def downgrade() -> None:
    for name in ("user_seen", "challenge_invites", "challenges", "blocks", "follows", "password_resets"):
        op.drop_table(name)
    op.drop_index("ix_mail_queue_status_send_after", "mail_queue")
    op.drop_table("mail_queue")
    op.drop_table("emails")
    op.drop_index("ix_tables_status_deadline", "tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("clock")
        batch.drop_column("to_move")
