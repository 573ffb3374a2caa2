"""Creating evaluations: size the matrix, honour Idempotency-Key, queue the shards."""

from __future__ import annotations

import hashlib
import math
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.benchmark.items import count_suite, suite_in_run_order
from app.benchmark.loader import Library
from app.benchmark.plan import Plan, plan_run, suite_plan
from app.config import Settings
from app.errors import Conflict, Invalid, NotFound
from app.kinds.registry import kind_named
from app.limits.admission import check_active_evaluations, check_matrix_size
from app.net.callable_url import require_callable_url
from app.schemas import EvaluationCreate, EvaluationPublic, Progress, RunPlan, SimulatorPublic
from app.security.secrets import SecretBox, secret_box_for
from app.services.probes import Prober, evaluation_endpoints, stored_target_endpoint
from app.store import evaluations as ev_store
from app.store import tallies
from app.store import targets as target_store
from app.store.models import Evaluation


def _request_hash(body: EvaluationCreate) -> str:
    # Without a baseline the field is left out, so a request retried across an upgrade keeps its hash.
    # `probe` says how to accept the request, not what it asks for.
    unset = {name for name in ("baseline_evaluation_id", "simulator") if getattr(body, name) is None}
    return hashlib.sha256(body.model_dump_json(exclude=unset | {"probe"}).encode()).hexdigest()


def _judge_fields(settings: Settings, secrets: SecretBox | None, body: EvaluationCreate) -> dict[str, Any]:
    """An evaluation's own panel: each URL checked like a target's, the keys sealed together as one JSON list;
    the clear part holds no secret. A single `judge` is stored as a panel of one."""
    panel = body.panel()
    if not panel:
        return {}
    for i, judge in enumerate(panel):
        field = "judge.base_url" if body.judge is not None else f"judges.{i}.base_url"
        require_callable_url(judge.base_url, field, settings)
    keys = [judge.api_key for judge in panel]
    box = secrets or secret_box_for(settings)
    config = {
        "judges": [
            {
                "base_url": j.base_url.rstrip("/"),
                "model": j.model,
                "samples": j.samples,
                "kind": j.kind,
                "params": j.params,
            }
            for j in panel
        ]
    }
    return {
        "judge_config": config,
        "judge_api_key_secret": box.encrypt_json(keys) if any(keys) else None,
    }


def _simulator_fields(
    settings: Settings, secrets: SecretBox | None, library: Library, body: EvaluationCreate
) -> dict[str, Any]:
    """A simulated suite's simulator: the evaluation's own (URL checked like a target's, key sealed) or the
    service default; the conversation rules are fixed here so a rerun of the evaluation plays by the same ones."""
    simulated = kind_named(library.suites[body.suite].kind).uses_simulator
    sim = body.simulator
    if sim is not None and not simulated:
        raise Invalid("simulator", f"simulator: suite {body.suite!r} has no simulated users")
    if not simulated:
        return {}
    if sim is None and not (settings.simulator_base_url and settings.simulator_model):
        raise Invalid(
            "simulator", "simulator: the simulated suite needs a simulator (this service has no default one)"
        )
    turn_cap = (sim.turn_cap if sim else None) or settings.simulator_turn_cap
    if turn_cap < settings.simulator_min_turns:
        raise Invalid(
            "simulator.turn_cap",
            f"simulator.turn_cap: at least {settings.simulator_min_turns} (the service's minimum turns)",
        )
    config: dict[str, Any] = {
        "turn_cap": turn_cap,
        "word_cap": (sim.word_cap if sim else None) or settings.simulator_word_cap,
    }
    if sim is None:
        return {"simulator_config": config}
    require_callable_url(sim.base_url, "simulator.base_url", settings)
    box = secrets or secret_box_for(settings)
    return {
        "simulator_config": {
            **config,
            "base_url": sim.base_url.rstrip("/"),
            "model": sim.model,
            "kind": sim.kind,
            "params": sim.params,
        },
        "simulator_api_key_secret": box.encrypt(sim.api_key) if sim.api_key else None,
    }


def check_repeats(settings: Settings, repeats: int) -> None:
    """The deployment's cap on repeats (the schema's bound is the API's; this one the operator sets)."""
    if repeats > settings.max_repeats:
        raise Invalid("repeats", f"repeats: at most {settings.max_repeats}")


def _judge_calls_per_item(settings: Settings, body: EvaluationCreate) -> int:
    """Answers asked of the judges per graded item: the evaluation's own panel, else the default judge if set."""
    panel = body.panel()
    if panel:
        return sum(judge.samples for judge in panel)
    return default_judge_calls(settings)


def default_judge_calls(settings: Settings) -> int:
    """Answers asked per graded item of the service's default judge: none when no default is configured."""
    return settings.judge_samples if settings.judge_base_url and settings.judge_model else 0


def warm_plans(settings: Settings, library: Library, suites: int = 2) -> None:
    """Cost the largest suites as an evaluation with the service's defaults would, so the first POST of each after
    a start answers without costing every item (run in a thread at start; small suites cost milliseconds)."""
    per_item = default_judge_calls(settings)
    for name in sorted(library.suites, key=lambda name: count_suite(library, name), reverse=True)[:suites]:
        suite_plan(library, name, judge_calls_per_item=per_item, turn_cap=settings.simulator_turn_cap)


def _plan(settings: Settings, library: Library, body: EvaluationCreate, turn_cap: int) -> Plan:
    """The run's cost; with caps, the items in run order that fit them (at least one, or the caps are refused).

    Without caps the order does not matter, so each cell is costed once and multiplied by the repeats."""
    per_item = _judge_calls_per_item(settings, body)
    suite = library.suites[body.suite]
    if body.max_calls is None and body.max_tokens is None:
        plan = suite_plan(library, body.suite, judge_calls_per_item=per_item, turn_cap=turn_cap)
        return Plan(
            **{name: value * body.repeats for name, value in plan.as_dict().items()}  # every field is a sum
        )
    ordered = suite_in_run_order(library, body.suite, body.repeats)
    plan = plan_run(
        library,
        ordered,
        judge_calls_per_item=per_item,
        max_calls=body.max_calls,
        max_tokens=body.max_tokens,
        turn_cap=turn_cap,
        suite=suite,
    )
    if plan.items_within_budget == 0:
        first = plan_run(library, ordered[:1], turn_cap=turn_cap, suite=suite)
        tokens = first.prompt_tokens_est + first.completion_tokens_est
        field = "max_calls" if body.max_calls is not None and first.calls > body.max_calls else "max_tokens"
        raise Invalid(
            field, f"{field}: too small for even the first item ({first.calls} calls, about {tokens} tokens)"
        )
    return plan


def create_evaluation(
    *,
    session: Session,
    settings: Settings,
    library: Library,
    team_id: str,
    body: EvaluationCreate,
    idempotency_key: str | None,
    secrets: SecretBox | None = None,
    probe: Prober | None = None,
) -> tuple[Evaluation, bool]:
    """Returns (evaluation, created). A repeated Idempotency-Key with the same body returns the first one.

    With `probe`, the target, the judges and the simulator are each called once after every other check and
    before anything is written; one that fails refuses the request."""
    if idempotency_key:
        existing = ev_store.find_by_idempotency_key(session=session, team_id=team_id, key=idempotency_key)
        if existing is not None:
            if existing.request_hash != _request_hash(body):
                raise Conflict("Idempotency-Key", "Idempotency-Key was already used with a different body")
            return existing, False
    target = target_store.get_target(session=session, team_id=team_id, target_id=body.target_id)
    if target is None:
        raise NotFound("target_id", f"target_id: no target {body.target_id!r}")
    check_repeats(settings, body.repeats)
    if body.suite not in library.suites:
        raise Invalid("suite", f"suite: unknown suite {body.suite!r}")
    check_matrix_size(count_suite(library, body.suite, body.repeats), body.repeats, settings)
    check_active_evaluations(session=session, team_id=team_id, settings=settings)
    if body.baseline_evaluation_id and not ev_store.get_evaluation(
        session=session, team_id=team_id, evaluation_id=body.baseline_evaluation_id
    ):
        raise Invalid(
            "baseline_evaluation_id", f"baseline_evaluation_id: no evaluation {body.baseline_evaluation_id!r}"
        )
    judge = _judge_fields(settings, secrets, body)
    simulator = _simulator_fields(settings, secrets, library, body)
    turn_cap = simulator.get("simulator_config", {}).get("turn_cap", settings.simulator_turn_cap)
    plan = _plan(settings, library, body, turn_cap)
    if probe is not None:
        box = secrets or secret_box_for(settings)
        probe([stored_target_endpoint(target, box, settings), *evaluation_endpoints(settings, library, body)])
    total = (
        plan.items
    )  # caps stop the run by what it measures (app/runner/budget.py), not at the plan's share
    evaluation = Evaluation(
        team_id=team_id,
        target_id=target.id,
        target_version=target.version,
        target_name=target.name,
        model=target.model,
        suite=body.suite,
        repeats=body.repeats,
        visibility=body.visibility,
        share_transcripts=body.share_transcripts,
        benchmark_version=library.version,
        total=total,
        plan=plan.as_dict(),
        max_calls=body.max_calls,
        max_tokens=body.max_tokens,
        shards=max(1, math.ceil(total / settings.shard_size)),
        idempotency_key=idempotency_key,
        request_hash=_request_hash(body),
        baseline_evaluation_id=body.baseline_evaluation_id,
        **judge,
        **simulator,
    )
    session.add(evaluation)
    try:
        session.flush()
    except IntegrityError:  # a concurrent request with the same Idempotency-Key won the race
        session.rollback()
        existing = ev_store.find_by_idempotency_key(
            session=session, team_id=team_id, key=idempotency_key or ""
        )
        if existing is None:
            raise
        return existing, False
    return evaluation, True


def public_evaluation(*, session: Session, evaluation: Evaluation) -> EvaluationPublic:
    counts = tallies.counts(session=session, evaluation_id=evaluation.id)
    capped = evaluation.max_calls is not None or evaluation.max_tokens is not None
    return EvaluationPublic(
        id=evaluation.id,
        status=evaluation.status,
        target_id=evaluation.target_id,  # type: ignore[arg-type]
        target_version=evaluation.target_version,
        plan=RunPlan(**evaluation.plan) if evaluation.plan else None,
        max_calls=evaluation.max_calls,
        max_tokens=evaluation.max_tokens,
        calls_used=evaluation.calls_used if capped else None,
        tokens_used=evaluation.tokens_used if capped else None,
        target_name=evaluation.target_name,
        model=evaluation.model,
        suite=evaluation.suite,
        repeats=evaluation.repeats,
        visibility=evaluation.visibility,
        share_transcripts=evaluation.share_transcripts,
        progress=Progress(total=evaluation.total, done=counts.written, failed=counts.failed),
        benchmark_version=evaluation.benchmark_version,
        error=evaluation.error,
        stalled=evaluation.stalled,
        simulator=_simulator_public(evaluation),
        schedule_id=evaluation.schedule_id,
        baseline_evaluation_id=evaluation.baseline_evaluation_id,
        created_at=evaluation.created_at,
        started_at=evaluation.started_at,
        finished_at=evaluation.finished_at,
    )


def _simulator_public(evaluation: Evaluation) -> SimulatorPublic | None:
    """Who played the users, without the key; null outside the simulated suite."""
    config = evaluation.simulator_config
    if not config:
        return None
    return SimulatorPublic(
        base_url=config.get("base_url"),
        model=config.get("model"),
        turn_cap=config["turn_cap"],
        word_cap=config["word_cap"],
        kind=config.get("kind"),
        params=config.get("params"),
    )
