"""The tables: a target version snapshots every column that decides how a call is made, ids say what they
name, and an item is unique per evaluation and key whatever writes it."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.store.models import TARGET_CONFIG_FIELDS, EvaluationItem, Target, new_id, slice_name
from tests.store.conftest import item_row, seed

# Target columns that are identity or bookkeeping, not configuration a version must keep.
NOT_CONFIG = {"id", "team_id", "created_at", "deleted_at", "version"}


def test_a_target_version_snapshots_every_configuration_column() -> None:
    columns = set(Target.model_fields)
    assert set(TARGET_CONFIG_FIELDS) == columns - NOT_CONFIG  # a new column must be versioned or named here


def test_ids_carry_their_kind_and_do_not_repeat() -> None:
    made = {new_id("ev") for _ in range(1000)}
    assert len(made) == 1000 and all(i.startswith("ev_") and len(i) == 19 for i in made)
    assert slice_name("country", "AU") == "country:AU"


def test_a_second_item_with_the_same_key_is_refused_by_the_database(engine: Engine) -> None:
    _, _, ev = seed(engine)
    with Session(engine) as session:
        session.add(EvaluationItem(**item_row(ev, 0)))
        session.commit()
        session.add(EvaluationItem(**item_row(ev, 1, key="k0")))
        with pytest.raises(IntegrityError):
            session.commit()
