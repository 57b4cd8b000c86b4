"""Web Push notifications: each account's devices (a browser's subscription, found by its endpoint's
SHA-256), the kinds of push each account wants, and the send queue (``catsack.server.people.push``).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision: str | None = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "push_devices",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("endpoint_hash", sa.String(64), nullable=False),
        sa.Column("endpoint", sa.String(1024), nullable=False),
        sa.Column("p256dh", sa.String(100), nullable=False),
        sa.Column("auth", sa.String(32), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_success", sa.Float, nullable=True),
        sa.UniqueConstraint("endpoint_hash"),
    )
    op.create_index("ix_push_devices_user_id", "push_devices", ["user_id"])
    op.create_table(
        "push_prefs",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("prefs", sa.Text, nullable=False),
    )
    op.create_table(
        "push_queue",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("device_id", sa.Integer, sa.ForeignKey("push_devices.id"), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("topic", sa.String(32), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("send_after", sa.Float, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("claimed", sa.Float, nullable=True),
        sa.Column("claimed_by", sa.String(32), nullable=True),
        sa.Column("sent", sa.Float, nullable=True),
        sa.Column("error", sa.String(200), nullable=True),
    )
    op.create_index("ix_push_queue_device_id", "push_queue", ["device_id"])
    op.create_index("ix_push_queue_user_id", "push_queue", ["user_id"])
    op.create_index("ix_push_queue_status_send_after", "push_queue", ["status", "send_after"])


def downgrade() -> None:
    op.drop_table("push_queue")
    op.drop_table("push_prefs")
    op.drop_table("push_devices")
