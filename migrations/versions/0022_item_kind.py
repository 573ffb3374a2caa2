"""an item stores the kind that played it (app/kinds), so readers no longer tell kinds apart by placeholder ids

Existing rows are backfilled from the rule the readers used before: the scenario slot `CONV` is a scripted
conversation, `SIM` a simulated one, an item of an evaluation whose suite is a classification suite a label, and
everything else a single reply.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
import yaml
from alembic import op

from app.config import Settings

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PLACEHOLDER_KINDS = {"CONV": "conversations", "SIM": "simulated"}


def _classification_suites() -> list[str]:
    """Names of the library's classification suites (the old rule looked the evaluation's suite up there); the
    bundled name when the library cannot be read here."""
    try:
        suites = yaml.safe_load((Settings().data_dir / "suites.yaml").read_text())["suites"]
        names = [name for name, spec in suites.items() if (spec or {}).get("kind") == "classification"]
    except (OSError, KeyError, TypeError, ValueError, AttributeError, yaml.YAMLError):
        names = []
    return names or ["classification"]


def upgrade() -> None:
    with op.batch_alter_table("evaluation_item") as batch:
        batch.add_column(
            sa.Column("item_kind", sa.String(length=24), nullable=False, server_default="matrix")
        )
    for scenario_id, kind in PLACEHOLDER_KINDS.items():
        op.execute(
            sa.text("UPDATE evaluation_item SET item_kind = :kind WHERE scenario_id = :scenario").bindparams(
                kind=kind, scenario=scenario_id
            )
        )
    labelled = sa.text(
        "UPDATE evaluation_item SET item_kind = 'classification' WHERE evaluation_id IN "
        "(SELECT id FROM evaluation WHERE suite IN :suites)"
    ).bindparams(sa.bindparam("suites", value=_classification_suites(), expanding=True))
    op.execute(labelled)


def downgrade() -> None:
    with op.batch_alter_table("evaluation_item") as batch:
        batch.drop_column("item_kind")
