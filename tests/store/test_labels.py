"""Human labels: a new upload for a key replaces the earlier label, and each label is read with its item."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from app.store.items import insert_items
from app.store.labels import labelled_items, replace_labels
from app.store.models import ItemLabel
from tests.store.conftest import item_row, seed


def test_a_new_label_for_a_key_replaces_the_old_and_reads_with_its_items_verdict(sqlite: Engine) -> None:
    team, _, ev = seed(sqlite, total=3)
    insert_items(
        engine=sqlite, rows=[item_row(ev, i, verdict=v) for i, v in enumerate(["PASS", "FAIL", "PASS"])]
    )
    with Session(sqlite) as session:
        first = [ItemLabel(team_id=team, evaluation_id=ev, key=f"k{i}", verdict="PASS") for i in range(2)]
        assert replace_labels(session=session, evaluation_id=ev, labels=first) == 2
        again = [ItemLabel(team_id=team, evaluation_id=ev, key="k1", verdict="FAIL", score=2)]
        assert replace_labels(session=session, evaluation_id=ev, labels=again) == 2
        session.commit()
        read = {
            label.key: (label.verdict, label.score, verdict)
            for label, verdict, _, _ in labelled_items(session=session, evaluation_id=ev)
        }
    assert read == {"k0": ("PASS", None, "PASS"), "k1": ("FAIL", 2, "FAIL")}


def test_more_labels_than_one_statement_may_bind_replace_all_earlier_ones(sqlite: Engine) -> None:
    team, _, ev = seed(sqlite, total=1000)
    insert_items(engine=sqlite, rows=[item_row(ev, i) for i in range(1000)])

    def upload(verdict: str) -> int:
        labels = [
            ItemLabel(team_id=team, evaluation_id=ev, key=f"k{i}", verdict=verdict) for i in range(1000)
        ]
        with Session(sqlite) as session:
            count = replace_labels(session=session, evaluation_id=ev, labels=labels)
            session.commit()
        return count

    assert upload("PASS") == 1000
    assert upload("FAIL") == 1000  # a unique key per item: any label left over would fail the insert
    with Session(sqlite) as session:
        assert {label.verdict for label, *_ in labelled_items(session=session, evaluation_id=ev)} == {"FAIL"}
