"""Run one shard of an evaluation: skip items already written, call the target, grade, write in batches."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import structlog
from sqlmodel import Session

from app.benchmark.items import ItemSpec
from app.benchmark.plan import SIMULATED_TURN_CAP, item_cost
from app.benchmark.schema import SuiteSpec
from app.config import Settings
from app.conversations.simulated_item import Simulator
from app.grading.grader import Grader
from app.kinds.base import PlayContext, Played
from app.kinds.registry import kind_named
from app.observability import metrics
from app.runner.breaker import Breaker
from app.runner.budget import Held, ShardBudget
from app.runner.grading_turns import GradingTurns
from app.runner.handback import HandedBack
from app.runner.judging import grader_for
from app.runner.runtime import CANCEL_POLL_SECONDS, Runtime
from app.runner.shard_places import Place
from app.runner.simulator import open_simulator, simulator_setup
from app.security.secrets import SecretBox
from app.store import evaluations as ev_store
from app.store import items as item_store
from app.store import targets as target_store
from app.store.models import WHOLE, Evaluation, Target, utcnow
from app.store.retry import db_call, describe, is_transient
from app.targets.base import TargetAdapter, TargetConfig, TargetReply

FLUSH_EVERY = 128
FLUSH_SECONDS = 0.5
T = TypeVar("T")

log = structlog.get_logger("helmbench.runner")


def shard_specs(deps: Runtime, evaluation: Evaluation, shard: int) -> list[ItemSpec]:
    """The items of one shard: a contiguous slice of the suite's run order, ending where the evaluation's items
    end (its total: the whole matrix; a budget stops a run by what it measures, not by a planned share)."""
    size = deps.settings.shard_size
    stop = min((shard + 1) * size, evaluation.total)
    return deps.specs.slice(deps.library, evaluation.suite, evaluation.repeats, shard * size, stop)


def stored_target_config(target: Target, secrets: SecretBox, settings: Settings) -> TargetConfig:
    """How to call a stored target (its secrets opened): what a probe of it sends its one call with."""
    headers = secrets.decrypt_json(target.headers_secret) if target.headers_secret else {}
    return TargetConfig(
        kind=target.kind,
        base_url=target.base_url,
        model=target.model,
        api_key=secrets.decrypt(target.api_key_secret) if target.api_key_secret else None,
        headers=dict(headers) if isinstance(headers, dict) else {},
        params=dict(target.params),
        timeout_s=target.timeout_s or settings.request_timeout_s,
        max_tokens=target.max_tokens,
        request_template=target.request_template,
        reply_pointer=target.reply_pointer,
    )


def target_config(deps: Runtime, target: Target) -> TargetConfig:
    """The same with the limits a run keeps to, and the target's id on its metrics."""
    return replace(
        stored_target_config(target, deps.secrets, deps.settings),
        max_concurrency=max(1, min(target.max_concurrency, deps.settings.target_max_concurrency)),
        requests_per_minute=target.requests_per_minute,
        tokens_per_minute=target.tokens_per_minute,
        label=target.id,
    )


def spec_row(
    evaluation_id: str, spec: ItemSpec, messages: list[dict[str, str]], reply: TargetReply
) -> dict[str, Any]:
    """The stored row of an item before grading."""
    return {
        "evaluation_id": evaluation_id,
        "key": spec.key,
        "idx": spec.index,
        "scenario_id": spec.scenario_id,
        "condition_id": spec.condition_id,
        "user_context_id": spec.user_context_id,
        "perturbation_id": spec.perturbation_id,
        "repeat": spec.repeat,
        "item_kind": spec.kind,
        "messages": messages,
        "reply": reply.text,
        "error_class": reply.error_class,
        "error": reply.error,
        "attempts": reply.attempts,
        "latency_ms": round(reply.latency_ms, 2),
        "usage": reply.usage,
        "verdict": None,
        "score": None,
        "checks": {},
        "reasons": [],
        "judge": None,
        "rules_score": None,
        "likert": None,
        "panel_scores": None,
        "judge_outcomes": None,
        "created_at": utcnow(),
    }


class _Writer:
    """Collects finished rows and writes them in batches; each batch is one idempotent transaction.

    A flush runs in a thread while the event loop keeps calling the target; at most one flush is in flight and
    rows that arrive meanwhile go in the next one, so a slow database batches more instead of stalling calls.
    A dropped connection is retried (app/store/retry.py); a write that still fails raises, and the shard fails
    with it: its unwritten items are run again by the shard's next run, never silently lost.
    """

    def __init__(self, deps: Runtime, label: str):
        self._deps = deps
        self._rows: list[dict[str, Any]] = []
        self._budgeted = 0  # rows in self._rows that held a share of the budget
        self._last = time.monotonic()
        self._lock = asyncio.Lock()
        self.added = 0
        self._counters = {
            outcome: metrics.ITEMS.labels(label, outcome)
            for outcome in (
                "ok",
                "target_error",
                "timeout",
                "bad_response",
                "rate_limited",
                "cancelled",
                "our_error",
                "simulator_error",
            )
        }

    async def add(self, row: dict[str, Any], budgeted: bool = False) -> None:
        self._rows.append(row)
        self._budgeted += budgeted
        self.added += 1
        self._counters[row["error_class"] or "ok"].inc()
        due = len(self._rows) >= FLUSH_EVERY or time.monotonic() - self._last > FLUSH_SECONDS
        if due and not self._lock.locked():
            await self.flush(due_only=True)

    async def flush(self, due_only: bool = False) -> None:
        """Write every row collected; `due_only`: stop once the rows left are not due yet (fewer than a batch).

        Why not write on whatever arrived during the last write: on a fast database that kept a flush going
        back to back, a transaction every few rows (its erase checks and commit each time), ~5% of a worker's
        CPU per call at C = 256 (py-spy). The rows left go with the next batch due, or the shard's last flush."""
        async with self._lock:
            first = True
            while self._rows and (first or not due_only or len(self._rows) >= FLUSH_EVERY):
                first = False
                rows, self._rows = self._rows, []
                budgeted, self._budgeted = self._budgeted, 0
                self._last = time.monotonic()
                await _db(
                    self._deps,
                    item_store.insert_items,
                    engine=self._deps.engine,
                    rows=rows,
                    budgeted=budgeted,
                )


async def _db(deps: Runtime, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """A store call in a thread, retried through a dropped connection for up to db_retry_s, then raised."""
    return await db_call(deps.settings.db_retry_s, fn, *args, **kwargs)


def _load(deps: Runtime, evaluation_id: str) -> tuple[Evaluation, Target] | None:
    with Session(deps.engine, expire_on_commit=False) as session:
        evaluation = session.get(Evaluation, evaluation_id)
        if evaluation is None:
            return None
        # the configuration the evaluation was created against, even if the target changed since
        target = target_store.target_at_version(
            session=session, target_id=evaluation.target_id, version=evaluation.target_version
        )
        if target is None:
            return None
        if not ev_store.mark_running(session=session, evaluation_id=evaluation_id):
            return None
        session.commit()
        return evaluation, target


def _pending(deps: Runtime, evaluation: Evaluation, shard: int) -> list[ItemSpec]:
    specs = shard_specs(deps, evaluation, shard)
    if not specs:
        return []
    with Session(deps.engine) as session:
        done = item_store.existing_keys(
            session=session,
            evaluation_id=evaluation.id,
            keys=(s.key for s in specs),
            within=(min(s.index for s in specs), max(s.index for s in specs)),
        )
    return [s for s in specs if s.key not in done]


def _cancelled(deps: Runtime, evaluation_id: str) -> bool:
    with Session(deps.engine) as session:
        return ev_store.is_cancelled(session=session, evaluation_id=evaluation_id)


def _board_report(
    deps: Runtime, session: Session, evaluation_id: str, suite: str
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The evaluation's report and its leaderboard slices, or None if building them failed (logged): a report
    bug must not leave a finished evaluation running forever."""
    # Imported here: the report needs NumPy and SciPy's special functions (~0.2 s to import); a worker imports
    # them early in a thread (runtime.warm_up), not in the first shard to finish.
    from app.scoring.report import BOARD_SLICES, compute_report

    try:
        report = compute_report(
            session=session, evaluation_id=evaluation_id, library=deps.library, with_slices=True, suite=suite
        )
    except Exception:
        log.exception("report failed", evaluation_id=evaluation_id)
        return None
    return report, report.pop(BOARD_SLICES)


def finish_evaluation(deps: Runtime, evaluation_id: str, budget_lost: bool = False) -> str | None:
    """Settle the status once every item is written (or its budget stopped it), and store the report the
    leaderboard reads. `budget_lost`: see ev_store.settlement.

    The report is built before the settling transaction, from items that no longer change: on SQLite a
    transaction that writes holds the one write lock, and building a full suite's report takes seconds, in which
    every API write and every other shard's items would wait (and past the busy timeout, fail). A second thread
    of this process finding the same evaluation being settled leaves it to the first, which looks once more
    (app/runner/reports_in_progress.py).
    """
    return deps.settling.settle(evaluation_id, lambda: _settle(deps, evaluation_id, budget_lost))


def _settle(deps: Runtime, evaluation_id: str, budget_lost: bool) -> str | None:
    from app.scoring.board import compact

    with Session(deps.engine) as session:
        ready = ev_store.settlement(session=session, evaluation_id=evaluation_id, budget_lost=budget_lost)
        evaluation = session.get(Evaluation, evaluation_id) if ready is not None else None
        if ready is None or evaluation is None:
            return None
        suite = evaluation.suite
        built = _board_report(deps, session, evaluation_id, suite)
    with Session(deps.engine) as session:
        outcome = ev_store.settlement(session=session, evaluation_id=evaluation_id, budget_lost=budget_lost)
        if outcome is None:
            return None
        # Items came in after the report was built (a budget stop's last): build it again.
        if outcome.written != ready.written:
            built = _board_report(deps, session, evaluation_id, suite)
        if not ev_store.settle(session=session, evaluation_id=evaluation_id, outcome=outcome):
            return None
        evaluation = session.get(Evaluation, evaluation_id)
        if evaluation is not None:
            session.refresh(evaluation)  # status and finished_at, set by the guarded update just above
            if built is not None:
                report, slices = built
                evaluation.summary = report
                ev_store.save_board_figures(
                    session=session,
                    evaluation_id=evaluation_id,
                    benchmark_version=evaluation.benchmark_version,
                    finished_at=evaluation.finished_at or utcnow(),  # set above; typed optional
                    figures={WHOLE: compact(report), **slices},
                )
            session.add(evaluation)
            if deps.on_settled is not None:
                try:
                    with session.begin_nested():  # a comparison bug must not undo the settle either
                        deps.on_settled(session=session, library=deps.library, evaluation=evaluation)
                except Exception:
                    log.exception("settle hook failed", evaluation_id=evaluation_id)
        session.commit()
        return outcome.status


def _fail(deps: Runtime, evaluation_id: str, error: str) -> None:
    with Session(deps.engine) as session:
        ev_store.fail_evaluation(session=session, evaluation_id=evaluation_id, error=error)
        session.commit()


async def run_shard(deps: Runtime, evaluation_id: str, shard: int, place: Place | None = None) -> str:
    """The one job function: re-entrant, keyed by item, safe to run twice. Returns what happened.

    `place`: the shard's place among those of its process taking items (app/runner/shard_places.py), given back as
    soon as the shard has handed out its last item, and at the latest when it returns.

    Raises when the database stays unreachable past db_retry_s (the queue runs the shard again, skipping what was
    written) and `HandedBack` when the process is stopping with items of the shard not yet run.
    """
    try:
        with deps.shards_running.running(evaluation_id) as last:
            return await _run_shard(deps, evaluation_id, shard, place or Place(lambda: None), last)
    finally:
        if place is not None:
            place.give_back()


async def _run_shard(
    deps: Runtime, evaluation_id: str, shard: int, place: Place, last: Callable[[], bool]
) -> str:
    bound = log.bind(evaluation_id=evaluation_id, shard=shard)
    loaded = await _db(deps, _load, deps, evaluation_id)
    if loaded is None:
        return "skipped: evaluation finished, cancelled or gone"
    evaluation, target = loaded
    if evaluation.benchmark_version != deps.library.version:
        error = (
            f"this worker has benchmark {deps.library.version}, the evaluation needs "
            f"{evaluation.benchmark_version}; deploy the same benchmark_data everywhere"
        )
        await _db(deps, _fail, deps, evaluation_id, error)
        bound.error("shard refused", reason=error)
        return "failed: " + error
    pending = await _db(deps, _pending, deps, evaluation, shard)
    config = target_config(deps, target)
    try:
        simulator_setup(deps, evaluation, config.max_concurrency)
    except (
        ValueError
    ) as exc:  # the default simulator it was created for is gone: say so, do not retry forever
        await _db(deps, _fail, deps, evaluation_id, str(exc))
        bound.error("shard refused", reason=str(exc))
        return f"failed: {exc}"
    budget = (
        ShardBudget(functools.partial(_db, deps), deps.engine, evaluation_id)
        if evaluation.max_calls is not None or evaluation.max_tokens is not None
        else None
    )
    bound.info("shard started", target=target.id, pending=len(pending))
    metrics.SHARDS_RUNNING.inc()
    try:
        async with (
            deps.targets.use(target.id, config, deps.settings) as session,
            grader_for(deps.settings, deps.secrets, deps.library.countries, evaluation) as grader,
            open_simulator(deps, evaluation, config.max_concurrency) as simulator,
        ):
            suite = deps.library.suites[evaluation.suite]
            outcome = await _run_items(
                deps,
                evaluation_id,
                pending,
                session.adapter,
                config,
                grader,
                bound,
                suite,
                simulator,
                budget,
                on_drained=place.give_back,
            )
    finally:
        metrics.SHARDS_RUNNING.dec()
    if outcome.tripped is not None:
        await _db(deps, _fail, deps, evaluation_id, outcome.tripped)
        bound.error("shard stopped by its breaker", reason=outcome.tripped, written=outcome.written)
        return "failed: " + outcome.tripped
    if outcome.stopped_by == "cancel" or await _db(deps, _cancelled, deps, evaluation_id):
        bound.info("shard cancelled")
        return "cancelled"
    if outcome.written < len(pending) and not (budget is not None and budget.stopped):
        left = len(pending) - outcome.written
        bound.warning("shard handed back", written=outcome.written, left=left)
        raise HandedBack(f"shard {shard}: stopping with {left} items not run; they go back to the queue")
    if not last():  # another shard of the run is running in this process: it looks when it ends
        bound.info(
            "shard finished", items=len(pending), evaluation_status="left to this process's other shards"
        )
        return f"shard {shard} done ({len(pending)} items run)"
    status = await _db(deps, finish_evaluation, deps, evaluation_id)
    bound.info("shard finished", items=len(pending), evaluation_status=status)
    return f"shard {shard} done ({len(pending)} items run)" + (f"; evaluation {status}" if status else "")


@dataclass(frozen=True)
class _Outcome:
    written: int
    stopped_by: str | None  # "cancel" (the evaluation was cancelled), "stop" (the process is stopping), None
    tripped: str | None = None  # why a breaker ended the run (the target or simulator is down), else None


def _simulator_outcome(reply: TargetReply) -> tuple[str | None, str | None]:
    """A simulated item's outcome as the simulator's breaker counts it: down only when it stopped answering."""
    if reply.error_class == "simulator_error" and (reply.error or "").startswith("simulator_unavailable"):
        return "target_error", reply.error
    if reply.ok or reply.error_class == "simulator_error":
        return None, None
    return "cancelled", None  # the target failed first: nothing learnt about the simulator


async def _run_items(
    deps: Runtime,
    evaluation_id: str,
    pending: list[ItemSpec],
    adapter: TargetAdapter,
    config: TargetConfig,
    grader: Grader,
    bound: Any,
    suite: SuiteSpec,
    simulator: Simulator | None = None,
    budget: ShardBudget | None = None,
    on_drained: Callable[[], None] = lambda: None,
) -> _Outcome:
    """Run the pending items with `max_concurrency` workers until done, cancelled, stopped or failed;
    `on_drained` runs once no item is left to hand out (the last ones may still be out).

    Every task runs in one TaskGroup, so the first failure (a write the database refused past its retries)
    cancels the rest and is raised here: no task's exception is left unretrieved, and a shard whose rows could
    not be written never reports itself done.
    """
    writer = _Writer(deps, config.label)
    todo, left = iter(pending), len(pending)
    settings = deps.settings
    breakers = [Breaker("target", after=settings.breaker_after, cooldown_s=settings.breaker_cooldown_s)]
    if simulator is not None:
        breakers.append(
            Breaker("simulator", after=settings.breaker_after, cooldown_s=settings.breaker_cooldown_s)
        )

    async def admitted() -> bool:
        """Every breaker lets an item start (waiting out an open one); False once one has tripped."""
        for breaker in breakers:
            if not await breaker.admit():
                for other in breakers:
                    other.no_item()  # a trial this worker holds goes to another, which then stops too
                return False
        return True

    def record(reply: TargetReply, simulated: bool) -> None:
        breakers[0].record(reply.error_class, reply.error)
        if simulated and len(breakers) > 1:
            breakers[1].record(*_simulator_outcome(reply))

    play_ctx = PlayContext(deps.library, suite, adapter, grader, simulator)
    grading: set[asyncio.Task[None]] = set()
    # Grading runs beside the calls: a worker asks the target for its next item as soon as a reply arrives, so
    # a judge's latency (often longer than the target's) overlaps the target's instead of adding to it, and the
    # checks' CPU runs while requests are out. The slots bound replies awaiting a grade: a judge slower than
    # the target makes workers wait, not memory grow. (A conversation is graded as it is played: its grade is
    # already there, and is written the same way.)
    grade_slots = asyncio.Semaphore(max(1, config.max_concurrency))
    turns = GradingTurns()

    def failed_row(spec: ItemSpec, exc: Exception) -> dict[str, Any]:
        bound.exception("item crashed", key=spec.key)
        failed = TargetReply(
            None, 0.0, 0, error_class="our_error", error=f"{type(exc).__name__}: {exc}"[:500]
        )
        return spec_row(evaluation_id, spec, [], failed)

    async def finish(spec: ItemSpec, played: Played, budgeted: bool) -> None:
        try:
            await turns.wait()  # graded beside the replies that arrive close to this one (see GradingTurns)
            try:
                graded = await kind_named(spec.kind).grade(play_ctx, played)
                row = spec_row(evaluation_id, spec, played.messages, played.reply) | graded
            except Exception as exc:  # a bug of ours costs one item (recorded as our_error), not the shard
                row = failed_row(spec, exc)
            if row["error_class"]:
                bound.warning(
                    "item failed",
                    key=spec.key,
                    error_class=row["error_class"],
                    error=row["error"],
                    attempts=row["attempts"],
                )
            await writer.add(row, budgeted)
        finally:
            grade_slots.release()

    turn_cap = simulator.rules.turn_cap if simulator is not None else SIMULATED_TURN_CAP

    taking = asyncio.Lock()

    async def take() -> tuple[ItemSpec | None, Held | None]:
        """The next spec and, under a budget, its share: taken under one lock, so the items a budget lets
        through are the first in run order (the ones the plan promised), not whichever reservation won a race."""
        nonlocal left
        async with taking:
            if deps.stopping.is_set() or (spec := next(todo, None)) is None:
                on_drained()
                return None, None
            held = None
            if budget is not None:
                held = await budget.reserve(item_cost(deps.library, spec, turn_cap, suite))
                if held is None:
                    on_drained()
                    return None, None
            left -= 1
            if not left:  # the last item is handed out: the next shard need not wait for its reply
                on_drained()
            return spec, held

    async def work(group: asyncio.TaskGroup) -> None:
        # One shared iterator: each spec is taken by exactly one worker. A stopping process takes no new item;
        # when the caps, as measured, allow no more items, this worker takes no new one.
        while await admitted():
            spec, held = await take()
            if spec is None:
                for breaker in breakers:
                    breaker.no_item()
                break
            kind = kind_named(spec.kind)
            try:
                played = await kind.play(play_ctx, spec)
                record(played.reply, kind.uses_simulator)
            except Exception as exc:
                if held is not None:
                    await held.keep()
                await writer.add(failed_row(spec, exc), held is not None)
                continue
            if held is not None:
                await held.measure(calls=played.reply.attempts, tokens=played.tokens)
            await grade_slots.acquire()
            task = group.create_task(finish(spec, played, held is not None))
            grading.add(task)
            task.add_done_callback(grading.discard)

    workers: list[asyncio.Task[None]] = []
    watcher: asyncio.Task[str] | None = None
    try:
        async with asyncio.TaskGroup() as group:
            workers += [
                group.create_task(work(group)) for _ in range(min(config.max_concurrency, len(pending)))
            ]
            watcher = asyncio.create_task(_watch(deps, evaluation_id, workers, grading, bound))
    except BaseExceptionGroup as failed:
        with contextlib.suppress(Exception):  # keep what can be kept; the first failure is the one to report
            await writer.flush()
        raise _first_error(failed) from None
    except asyncio.CancelledError:  # the queue stopped the job (abort, timeout, hard stop): keep what is done
        with contextlib.suppress(Exception):
            await writer.flush()
        raise
    finally:
        stopped_by = await _stop_watching(watcher)
        for breaker in breakers:
            breaker.stop()
    await writer.flush()
    tripped = next((b.reason for b in breakers if b.tripped), None)
    return _Outcome(written=writer.added, stopped_by=stopped_by, tripped=tripped)


def _first_error(group: BaseExceptionGroup) -> BaseException:
    """The first real failure in a task group (a cancellation only if nothing else failed)."""
    flat: list[BaseException] = []

    def walk(exc: BaseException) -> None:
        if isinstance(exc, BaseExceptionGroup):
            for inner in exc.exceptions:
                walk(inner)
        else:
            flat.append(exc)

    walk(group)
    return next((e for e in flat if not isinstance(e, asyncio.CancelledError)), flat[0])


async def _stop_watching(watcher: asyncio.Task[str] | None) -> str | None:
    """End the watcher; returns what it stopped the shard for, if it did."""
    if watcher is None:
        return None
    if not watcher.done():
        watcher.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        return await watcher
    return None


async def _watch(
    deps: Runtime,
    evaluation_id: str,
    workers: list[asyncio.Task[None]],
    grading: set[asyncio.Task[None]],
    bound: Any,
) -> str:
    """Stops the shard's calls when the evaluation is cancelled (at once) or the process stops (after a grace).

    A stopping process lets the calls in flight finish for stop_grace_s, so their items are written rather than
    run twice; past that they are cancelled and their items handed back. A poll the database cannot answer is
    skipped: cancellation waits for the next poll, the items do not.
    """
    stopping_since: float | None = None
    while True:
        await asyncio.sleep(CANCEL_POLL_SECONDS)
        if deps.stopping.is_set():
            stopping_since = stopping_since or time.monotonic()
            if time.monotonic() - stopping_since >= deps.settings.stop_grace_s:
                for task in workers:
                    task.cancel()
                return "stop"
        try:
            cancelled = await deps.cancel_polls.get(
                evaluation_id, functools.partial(_cancelled, deps, evaluation_id)
            )
        except Exception as exc:
            if not is_transient(exc):
                raise
            bound.warning("cancel poll failed", error=describe(exc))
            continue
        if cancelled:
            for task in (*workers, *grading):
                task.cancel()
            return "cancel"
