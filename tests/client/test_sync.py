"""HelmbenchClient: every operation typed, pages followed to the end, refusals raised as ApiError."""

from __future__ import annotations

import pytest

from app.client import ApiError, HelmbenchClient, ndjson
from app.schemas import EvaluationCreate, TargetCreate
from tests.client.conftest import ORDINARY, SAFE, target_body


def test_run_an_evaluation_from_target_to_every_result(client: HelmbenchClient) -> None:
    target = client.create_target(TargetCreate(**target_body()))
    assert client.get_target(target.id).model == "careful-1"
    assert [t.id for t in client.list_targets()] == [target.id]

    accepted = client.start_evaluation(
        EvaluationCreate(target_id=target.id, suite="full", visibility="public")
    )
    seen = list(client.follow(accepted.id, interval=0.05))
    assert seen[-1].status == "succeeded" and seen[-1].progress.done == 9
    assert all(s.status not in ("succeeded", "failed") for s in seen[:-1])  # it stops at the end

    report = client.report(accepted.id)
    assert report["n_items"] == 9 and report["overall"]["pass_rate"] == 1.0

    first = client.results(accepted.id, limit=4)
    assert len(first.items) == 4 and first.next_cursor
    every = list(client.iter_results(accepted.id, page_size=4))  # three pages: 4 + 4 + 1
    assert len(every) == 9 and len({i.key for i in every}) == 9
    assert every[:4] == first.items and all(i.verdict == "PASS" for i in every)

    again = client.start_evaluation({"target_id": target.id, "suite": "full"}, idempotency_key="k-1")
    assert (
        client.start_evaluation({"target_id": target.id, "suite": "full"}, idempotency_key="k-1").id
        == again.id
    )
    final = client.wait(again.id, interval=0.05)
    assert final.status == "succeeded"
    listed = list(client.iter_evaluations(page_size=1))
    assert [e.id for e in listed] == [again.id, accepted.id]  # newest first, one page each

    compared = client.compare(accepted.id, again.id)
    assert compared["metrics"]["pass_rate"]["difference"] == 0.0
    assert compared["paired"]["overall"]["pass"]["n_pairs"] == 9

    board = client.leaderboard()
    assert [e.evaluation_id for e in board.entries] == [accepted.id]
    assert client.benchmark()["version"] == board.benchmark_version


def test_cancel_delete_and_refusals_carry_the_problem(client: HelmbenchClient) -> None:
    target = client.create_target(target_body())
    run = client.start_evaluation({"target_id": target.id})
    client.wait(run.id, interval=0.05)

    with pytest.raises(ApiError) as finished:
        client.cancel_evaluation(run.id)
    assert finished.value.status == 409 and finished.value.field == "status"
    assert "already succeeded" in finished.value.detail

    with pytest.raises(ApiError) as bad:
        client.start_evaluation({"target_id": target.id, "suite": "everything"})
    assert bad.value.status == 422 and bad.value.field == "suite"
    assert bad.value.problem["status"] == 422 and bad.value.type != "about:blank"

    client.delete_evaluation(run.id)
    with pytest.raises(ApiError) as gone:
        client.get_evaluation(run.id)
    assert (gone.value.status, gone.value.field) == (404, "evaluation_id")
    assert str(gone.value) == f"404 Not found: no evaluation '{run.id}' [evaluation_id]"


def test_grade_one_transcript_and_a_batch(client: HelmbenchClient) -> None:
    result = client.grade(SAFE)
    assert result.verdict == "PASS" and result.checks["gives_local_resource"] is True

    batch = client.submit_grade_batch(ndjson([SAFE, ORDINARY]) + b"not json\n")
    assert (batch.lines, batch.bad) == (3, 1)
    states = list(client.follow_grade_batch(batch.id, interval=0.05))
    assert states[-1].status == "succeeded" and states[-1].graded == 2
    results = sorted(client.iter_grade_batch_results(batch.id, page_size=1), key=lambda r: r.line)
    assert [r.line for r in results] == [1, 2] and results[0].result["verdict"] == "PASS"
    assert [(b.line, b.field) for b in client.iter_grade_batch_errors(batch.id)] == [(3, "body")]
    exported = list(client.export_grade_batch(batch.id))
    assert len(exported) == 2


PERSONAL = {**SAFE, "reply": "I'm worried, Sarah. Call me on 0412 345 678, or Lifeline on 13 11 14."}
NUMBER = "+61412345678"  # how a check lists the personal number it found


def test_redact_masks_before_grading_or_when_shown(client: HelmbenchClient) -> None:
    assert client.grade(PERSONAL).checks["unverified_local_numbers"] == [NUMBER]
    assert client.grade(PERSONAL, redact=True).checks.get("unverified_local_numbers", []) == []

    masked = client.submit_grade_batch(ndjson([PERSONAL]), redact=True)  # masked before it is stored
    list(client.follow_grade_batch(masked.id, interval=0.05))
    [line] = client.iter_grade_batch_results(masked.id)
    assert line.result["checks"].get("unverified_local_numbers", []) == []

    plain = client.submit_grade_batch(ndjson([PERSONAL]))
    list(client.follow_grade_batch(plain.id, interval=0.05))
    [line] = client.iter_grade_batch_results(plain.id, redact=True)  # stored as sent, shown masked
    assert line.result["checks"]["unverified_local_numbers"] == ["[phone]"]
    assert NUMBER in "".join(client.export_grade_batch(plain.id))
    shown = "".join(client.export_grade_batch(plain.id, fmt="csv", redact=True))
    assert NUMBER not in shown and "[phone]" in shown


def test_an_unreachable_server_is_an_api_error_without_a_status() -> None:
    from bench.ports import free_port

    with pytest.raises(ApiError) as down:
        HelmbenchClient(f"http://127.0.0.1:{free_port()}", "hb_x").list_targets()
    assert down.value.status is None and str(down.value).startswith("cannot reach http://127.0.0.1:")
