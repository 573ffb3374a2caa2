"""items by evaluation, verdict and position: results filtered by verdict page in matrix order on the index

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_item_evaluation_verdict", "evaluation_item", ["evaluation_id", "verdict", "idx"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_item_evaluation_verdict", table_name="evaluation_item")
