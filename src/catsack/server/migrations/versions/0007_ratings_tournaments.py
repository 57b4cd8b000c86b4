"""Fair ratings, reputation and tournaments (issue 30).

- ``rating_history`` keeps each rating before the game (the operator can revert a game) and marks
  seats abandoned to a bot (rated last); ``rated_games`` records a revert.
- ``seat_outcomes``: per account seat, finished or abandoned (reputation).
- ``seat_users`` gets a unique key on ``(table_id, user_id)``: one account, one seat per table. A
  database in which an account holds several seats of one table (the defect this fixes) keeps the
  binding of the lowest seat; the others become guest seats (their games and ratings stay).

Revision ID: 0007
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rating_history") as t:
        t.add_column(sa.Column("mu_before", sa.Float, nullable=True))
        t.add_column(sa.Column("sigma_before", sa.Float, nullable=True))
        t.add_column(sa.Column("abandoned", sa.Boolean, nullable=False, server_default=sa.false()))
        t.add_column(sa.Column("reverted", sa.Boolean, nullable=False, server_default=sa.false()))
    with op.batch_alter_table("rated_games") as t:
        t.add_column(sa.Column("reverted", sa.Float, nullable=True))
        t.add_column(sa.Column("reason", sa.String(200), nullable=True))
    op.create_table(
        "seat_outcomes",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(12), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_seat_outcomes_user_id", "seat_outcomes", ["user_id"])
    op.execute(
        "DELETE FROM seat_users WHERE EXISTS (SELECT 1 FROM seat_users AS o WHERE o.table_id = seat_users.table_id"
        " AND o.user_id = seat_users.user_id AND o.seat < seat_users.seat)"
    )
    op.create_index("seat_users_one_seat", "seat_users", ["table_id", "user_id"], unique=True)


def downgrade() -> None:
    op.drop_index("seat_users_one_seat", "seat_users")
    op.drop_index("ix_seat_outcomes_user_id", "seat_outcomes")
    op.drop_table("seat_outcomes")
    with op.batch_alter_table("rated_games") as t:
        t.drop_column("reason")
        t.drop_column("reverted")
    with op.batch_alter_table("rating_history") as t:
        t.drop_column("reverted")
        t.drop_column("abandoned")
        t.drop_column("sigma_before")
        t.drop_column("mu_before")
