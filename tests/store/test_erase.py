"""Erasing an evaluation or a batch deletes every row about it, and a run in flight writes nothing after."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from app.store import erase
from app.store.grade_batches import LineRow, add_lines, create_batch
from app.store.items import insert_items
from app.store.jobs import enqueue_jobs
from app.store.models import (
    Evaluation,
    EvaluationItem,
    GradeBatch,
    GradeBatchLine,
    QueuedJob,
    Webhook,
    WebhookDelivery,
    WebhookMessage,
)
from app.store.outbox import queue_webhooks
from tests.store.conftest import item_row, seed


def _count(engine: Engine, model: type) -> int:
    with Session(engine) as session:
        return int(session.exec(select(func.count()).select_from(model)).one())


def _with_message(engine: Engine, team_id: str, **subject: str) -> None:
    """A webhook message about the subject, with one delivery attempt recorded."""
    with Session(engine) as session:
        hook = Webhook(team_id=team_id, url="http://127.0.0.1:9/h", events=[], signing_secret="sealed")
        session.add(hook)
        session.flush()
        queue_webhooks(session=session, team_id=team_id, event="evaluation.succeeded", **subject)
        message = session.exec(select(WebhookMessage)).one()
        session.add(WebhookDelivery(message_id=message.id, webhook_id=hook.id, attempt=1))
        session.commit()


@pytest.mark.parametrize("keep_report", [False, True])
def test_an_erased_evaluation_leaves_no_row_about_it(engine: Engine, keep_report: bool) -> None:
    team_id, _, evaluation_id = seed(engine, summary={"overall": {"n": 2}}, status="running")
    insert_items(engine=engine, rows=[item_row(evaluation_id, 0), item_row(evaluation_id, 1)])
    enqueue_jobs(engine=engine, jobs=[(f"{evaluation_id}:shard:0", "shard", evaluation_id, 0)])
    _with_message(engine, team_id, evaluation_id=evaluation_id)
    with Session(engine) as session:
        evaluation = erase.lock_evaluation(session=session, evaluation_id=evaluation_id)
        assert evaluation is not None
        erase.erase_evaluation(session=session, evaluation=evaluation, keep_report=keep_report)
        session.commit()
    for model in (EvaluationItem, QueuedJob, WebhookMessage, WebhookDelivery):
        assert _count(engine, model) == 0, model
    with Session(engine) as session:
        kept = session.get(Evaluation, evaluation_id)
        if keep_report:
            assert kept is not None and kept.summary == {"overall": {"n": 2}}
            assert kept.transcripts_deleted_at is not None and kept.status == "cancelled"
        else:
            assert kept is None
    # a shard still running when the erase committed writes nothing
    assert insert_items(engine=engine, rows=[item_row(evaluation_id, 2)]) == 0
    assert _count(engine, EvaluationItem) == 0


@pytest.mark.parametrize("keep_report", [False, True])
def test_an_erased_batch_leaves_no_line(engine: Engine, keep_report: bool) -> None:
    team_id, _, _ = seed(engine)
    with Session(engine) as session:
        batch_id = create_batch(session=session, team_id=team_id).id
        add_lines(session=session, batch_id=batch_id, rows=[LineRow(1, transcript='{"a": 1}')], last_line=1)
        session.commit()
    enqueue_jobs(engine=engine, jobs=[(f"{batch_id}:grade:0", "grade", batch_id, 0)])
    _with_message(engine, team_id, grade_batch_id=batch_id)
    with Session(engine) as session:
        batch = session.get(GradeBatch, batch_id)
        assert batch is not None
        erase.erase_batch(session=session, batch=batch, keep_report=keep_report)
        session.commit()
    for model in (GradeBatchLine, QueuedJob, WebhookMessage, WebhookDelivery):
        assert _count(engine, model) == 0, model
    assert _count(engine, GradeBatch) == int(keep_report)
