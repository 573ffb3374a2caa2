"""item labels: human labels per evaluation item, for calibrating checks and the judge

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "item_label",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("team_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("evaluation_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("verdict", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=True),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("checks", sa.JSON(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["evaluation_id"],
            ["evaluation.id"],
        ),
        sa.ForeignKeyConstraint(
            ["team_id"],
            ["team.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("evaluation_id", "key", name="uq_label_key"),
    )
    with op.batch_alter_table("item_label", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_item_label_team_id"), ["team_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("item_label", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_item_label_team_id"))

    op.drop_table("item_label")
