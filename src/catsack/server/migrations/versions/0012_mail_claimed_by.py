"""Mail queue: which server process claimed a mail it is sending, so that a mail claimed by a process
that died is sent again as soon as that process counts as dead, not only after ``STALE_SECONDS``.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision: str | None = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("mail_queue") as batch:
        batch.add_column(sa.Column("claimed_by", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("mail_queue") as batch:
        batch.drop_column("claimed_by")
