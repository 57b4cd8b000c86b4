"""Fair ratings, reputation and tournaments.

- ``tournaments``, ``tournament_entries``, ``tournament_tables``, ``tournament_results``: Swiss
  tournaments (catsack.server.tournaments.model).
- ``rating_history`` keeps each rating before the game (the operator can revert a game) and marks
  seats abandoned to a bot (rated last); ``rated_games`` records a revert.
- ``seat_outcomes``: per account seat, finished or abandoned (reputation).
- ``seat_users`` gets a unique key on ``(table_id, user_id)``: one account, one seat per table. A
  database in which an account holds several seats of one table keeps the
  binding of the lowest seat; the others become guest seats (their games and ratings stay).

Revision ID: 0007
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0008"
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
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("creator", sa.Integer, nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("starts", sa.Float, nullable=True),
        sa.Column("started", sa.Float, nullable=True),
        sa.Column("finished", sa.Float, nullable=True),
        sa.Column("current_round", sa.Integer, nullable=False),
    )
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.String(16), primary_key=True),
        sa.Column("entry", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, nullable=True),
        sa.Column("bot", sa.String(40), nullable=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("withdrawn", sa.Float, nullable=True),
        sa.Column("withdrawn_round", sa.Integer, nullable=True),
    )
    op.create_index(
        "tournament_entries_one_per_account", "tournament_entries", ["tournament_id", "user_id"], unique=True
    )
    op.create_table(
        "tournament_tables",
        sa.Column("tournament_id", sa.String(16), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("table_no", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("seating", sa.Text, nullable=False),
    )
    op.create_index("ix_tournament_tables_table_id", "tournament_tables", ["table_id"])
    op.create_table(
        "tournament_results",
        sa.Column("tournament_id", sa.String(16), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("entry", sa.Integer, primary_key=True),
        sa.Column("table_no", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("points", sa.Float, nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("cats", sa.Integer, nullable=False),
        sa.Column("win", sa.Float, nullable=False),
        sa.Column("abandoned", sa.Boolean, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tournament_results")
    op.drop_index("ix_tournament_tables_table_id", "tournament_tables")
    op.drop_table("tournament_tables")
    op.drop_index("tournament_entries_one_per_account", "tournament_entries")
    op.drop_table("tournament_entries")
    op.drop_table("tournaments")
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
