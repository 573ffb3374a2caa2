"""browser sessions: API-key sign-in on the pages, and share links to one evaluation's report

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

AutoString = sqlmodel.sql.sqltypes.AutoString
UTCDateTime = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "browser_session",
        sa.Column("id", AutoString(length=40), nullable=False),
        sa.Column("token_hash", AutoString(length=64), nullable=False),
        sa.Column("key_id", AutoString(length=40), nullable=False),
        sa.Column("team_id", AutoString(length=40), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["key_id"], ["apikey.id"]),
        sa.ForeignKeyConstraint(["team_id"], ["team.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    with op.batch_alter_table("browser_session", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_browser_session_key_id"), ["key_id"], unique=False)
    op.create_table(
        "share_link",
        sa.Column("id", AutoString(length=40), nullable=False),
        sa.Column("token_hash", AutoString(length=64), nullable=False),
        sa.Column("evaluation_id", AutoString(length=40), nullable=False),
        sa.Column("team_id", AutoString(length=40), nullable=False),
        sa.Column("created_by", AutoString(length=40), nullable=True),
        sa.Column("label", AutoString(length=200), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.Column("revoked_at", UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["evaluation_id"], ["evaluation.id"]),
        sa.ForeignKeyConstraint(["team_id"], ["team.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    with op.batch_alter_table("share_link", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_share_link_evaluation_id"), ["evaluation_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("share_link", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_share_link_evaluation_id"))
    op.drop_table("share_link")
    with op.batch_alter_table("browser_session", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_browser_session_key_id"))
    op.drop_table("browser_session")
