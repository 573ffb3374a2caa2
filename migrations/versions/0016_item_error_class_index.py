"""items by evaluation and error class: a status poll's counts (written, failed) read the index alone

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-24
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_item_evaluation_error", "evaluation_item", ["evaluation_id", "error_class"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_item_evaluation_error", table_name="evaluation_item")
