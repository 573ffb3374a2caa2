"""What the public sees: only a published evaluation that succeeded, whoever asks; its verdicts page by page,
and what was said (messages, replies, errors) only when its owner shares transcripts."""

from __future__ import annotations

import pytest
from sqlmodel import Session, col, update

from app.errors import NotFound
from app.runner.runtime import Runtime
from app.schemas import ResultsPage
from app.services.public_evaluations import public_evaluation_or_404, public_results
from app.store.models import EvaluationItem
from tests.services.conftest import add_owner, add_run


def _results(deps: Runtime, evaluation_id: str, cursor: str | None = None, limit: int = 100) -> ResultsPage:
    with Session(deps.engine) as session:
        return public_results(session=session, evaluation_id=evaluation_id, cursor=cursor, limit=limit)


@pytest.mark.parametrize(
    "fields",
    [
        {"visibility": "private", "status": "succeeded"},
        {"visibility": "public", "status": "running"},
        {"visibility": "public", "status": "failed"},
        {"visibility": "public", "status": "stopped_by_budget"},
    ],
)
def test_only_a_published_evaluation_that_succeeded_is_public(
    runtime: Runtime, fields: dict[str, str]
) -> None:
    evaluation_id = add_run(runtime, *add_owner(runtime.engine), share_transcripts=True, **fields)
    for wanted in (evaluation_id, "ev_nope"):
        with Session(runtime.engine) as session, pytest.raises(NotFound) as hidden:
            public_evaluation_or_404(session=session, evaluation_id=wanted)
        assert hidden.value.field == "evaluation_id"
        with pytest.raises(NotFound):
            _results(runtime, wanted)


def test_results_page_with_verdicts_and_show_what_was_said_only_when_shared(runtime: Runtime) -> None:
    team_id, target_id = add_owner(runtime.engine)
    published = {"visibility": "public", "status": "succeeded"}
    closed = add_run(runtime, team_id, target_id, misses_crisis=True, **published)
    shared = add_run(runtime, team_id, target_id, share_transcripts=True, **published)
    with Session(runtime.engine) as session:  # one call failed, saying where it went
        session.execute(
            update(EvaluationItem)
            .where(col(EvaluationItem.evaluation_id).in_([closed, shared]), col(EvaluationItem.idx) == 8)
            .values(verdict=None, error_class="target_error", error="HTTP 500 from the target")
        )
        session.commit()

    first = _results(runtime, closed, limit=4)
    rest = _results(runtime, closed, cursor=first.next_cursor)
    items = first.items + rest.items
    assert [i.index for i in items] == list(range(9)) and rest.next_cursor is None
    assert [i.verdict for i in items].count("FAIL") == 4 and items[8].error_class == "target_error"
    assert all(i.messages == [] and i.reply is None and i.error is None for i in items)
    assert any(i.reasons for i in items)  # why an item failed is a result, not a transcript

    opened = _results(runtime, shared).items
    assert all(i.messages and i.reply == "(reply)" for i in opened)
    assert opened[8].error == "HTTP 500 from the target"
