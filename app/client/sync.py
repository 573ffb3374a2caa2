"""HelmbenchClient: the API from Python, blocking (scripts, notebooks, the `helmbench` CLI)."""

from __future__ import annotations

import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

import httpx

from app.client import calls
from app.client.calls import RECONNECTS, STREAM_TIMEOUT, Call, Page
from app.client.errors import ApiError, raise_for_problem, unreachable
from app.client.events import ProgressEvent, SseDecoder
from app.grading.result import GradeResult
from app.schemas import (
    BadLine,
    BatchResult,
    EvaluationAccepted,
    EvaluationCreate,
    EvaluationPage,
    EvaluationPublic,
    GradeBatchAccepted,
    GradeBatchPublic,
    ItemPublic,
    Leaderboard,
    ResultsPage,
    TargetCreate,
    TargetPublic,
)
from app.store.statuses import BATCH_DONE, TERMINAL

T = TypeVar("T")


class HelmbenchClient:
    """One connection pool to one server; every method is one operation of `app.client.calls`.

    Failures raise ApiError (the problem+json, or status None when the server could not be reached).
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        key: str | None = None,
        *,
        timeout: float = 30.0,
        http: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.http = http or httpx.Client(base_url=self.base_url, timeout=timeout)
        self.http.headers.update(headers)
        if (
            http is None
        ):  # a pool of our own: its connections close with the client, even if close() is never called
            weakref.finalize(self, self.http.close)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> HelmbenchClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _send(self, call: Call[T]) -> T:
        try:
            response = self.http.request(call.method, call.path, **call.request())
        except httpx.HTTPError as exc:
            raise unreachable(self.base_url, exc) from None
        return calls.answer(call, response)

    def _lines(self, call: Call[Any], timeout: httpx.Timeout | None = None) -> Iterator[str]:
        """The response's lines as they arrive; a refusal raises ApiError before the first."""
        extra = {"timeout": timeout} if timeout is not None else {}
        with self.http.stream(call.method, call.path, **call.request(), **extra) as response:
            if not response.is_success:
                response.read()
                raise_for_problem(response)
            yield from response.iter_lines()

    def _chunks(self, call: Call[Any]) -> Iterator[bytes]:
        """The response's bytes as they arrive (a binary file); a refusal raises ApiError before the first."""
        try:
            with self.http.stream(call.method, call.path, **call.request()) as response:
                if not response.is_success:
                    response.read()
                    raise_for_problem(response)
                yield from response.iter_bytes()
        except httpx.HTTPError as exc:
            raise unreachable(self.base_url, exc) from None

    def _pages(self, fetch: Callable[[str | None], Page[T]]) -> Iterator[T]:
        cursor: str | None = None
        while True:
            page = fetch(cursor)
            yield from page.items
            cursor = page.next_cursor
            if not cursor:
                return

    # Targets

    def create_target(self, body: TargetCreate | Mapping[str, Any]) -> TargetPublic:
        """Registers a model endpoint (probed once first unless `probe` is false)."""
        return self._send(calls.create_target(body))

    def list_targets(self) -> list[TargetPublic]:
        return self._send(calls.list_targets())

    def get_target(self, target_id: str) -> TargetPublic:
        return self._send(calls.get_target(target_id))

    # Evaluations

    def start_evaluation(
        self, body: EvaluationCreate | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> EvaluationAccepted:
        """Starts a run; the same idempotency key answers the same evaluation again."""
        return self._send(calls.start_evaluation(body, idempotency_key))

    def list_evaluations(self, *, cursor: str | None = None, limit: int = 50) -> EvaluationPage:
        """One page, newest first."""
        return self._send(calls.list_evaluations(cursor, limit))

    def iter_evaluations(self, *, page_size: int = 50) -> Iterator[EvaluationPublic]:
        """Every evaluation of the team, newest first, page after page."""
        return self._pages(lambda cursor: self.list_evaluations(cursor=cursor, limit=page_size))

    def get_evaluation(self, evaluation_id: str) -> EvaluationPublic:
        return self._send(calls.get_evaluation(evaluation_id))

    def cancel_evaluation(self, evaluation_id: str) -> EvaluationPublic:
        return self._send(calls.cancel_evaluation(evaluation_id))

    def delete_evaluation(self, evaluation_id: str, *, keep_report: bool = False) -> None:
        self._send(calls.delete_evaluation(evaluation_id, keep_report))

    def follow(self, evaluation_id: str, *, interval: float = 1.0) -> Iterator[EvaluationPublic]:
        """The evaluation's status every `interval` seconds until it is terminal (the last one yielded)."""
        while True:
            evaluation = self.get_evaluation(evaluation_id)
            yield evaluation
            if evaluation.status in TERMINAL:
                return
            time.sleep(interval)

    def wait(self, evaluation_id: str, *, interval: float = 1.0) -> EvaluationPublic:
        """Blocks until the evaluation is terminal; returns its final status."""
        return deque(self.follow(evaluation_id, interval=interval), maxlen=1)[0]

    def events(self, evaluation_id: str) -> Iterator[ProgressEvent]:
        """Live progress as the server streams it, resuming after a dropped connection; ends with `end`."""
        decoder = SseDecoder()
        for _ in range(RECONNECTS):
            try:
                for line in self._lines(calls.events(evaluation_id, decoder.headers()), STREAM_TIMEOUT):
                    if (event := decoder.feed(line)) is not None:
                        yield event
                        if event.end:
                            return
            except httpx.HTTPError:
                time.sleep(1.0)
        raise ApiError(None, "Unreachable", "the progress stream kept dropping; poll instead")

    def report(self, evaluation_id: str) -> dict[str, Any]:
        return self._send(calls.report(evaluation_id))

    def results(
        self, evaluation_id: str, *, cursor: str | None = None, limit: int = 100, redact: bool = False
    ) -> ResultsPage:
        """One page of items."""
        return self._send(calls.results(evaluation_id, cursor, limit, redact))

    def iter_results(
        self, evaluation_id: str, *, page_size: int = 100, redact: bool = False
    ) -> Iterator[ItemPublic]:
        """Every item of the evaluation, following the cursor from page to page."""
        return self._pages(
            lambda cursor: self.results(evaluation_id, cursor=cursor, limit=page_size, redact=redact)
        )

    def compare(self, a: str, b: str) -> dict[str, Any]:
        """Metric differences (b − a) with intervals, and paired tests over the items both ran."""
        return self._send(calls.compare(a, b))

    # Public

    def leaderboard(
        self, *, cursor: str | None = None, limit: int | None = None, **filters: str
    ) -> Leaderboard:
        """One page of the public board; filters: benchmark_version, country, condition, suite, sort, order."""
        return self._send(calls.leaderboard(cursor, limit, **filters))

    def benchmark(self) -> dict[str, Any]:
        return self._send(calls.benchmark())

    # Grading

    def grade(self, transcript: Mapping[str, Any], *, redact: bool = False) -> GradeResult:
        """Grades one reply: a free transcript, or a stored item's new reply (personal details masked first
        with redact)."""
        return self._send(calls.grade(transcript, redact))

    def submit_grade_batch(
        self, content: bytes | Iterator[bytes], *, redact: bool = False
    ) -> GradeBatchAccepted:
        """Uploads JSONL (bytes, or chunks streamed as read); `calls.ndjson` makes it from transcripts. With redact
        the server masks personal details before any line is stored."""
        return self._send(calls.submit_grade_batch(content, redact))

    def get_grade_batch(self, batch_id: str) -> GradeBatchPublic:
        return self._send(calls.get_grade_batch(batch_id))

    def delete_grade_batch(self, batch_id: str, *, keep_report: bool = False) -> None:
        self._send(calls.delete_grade_batch(batch_id, keep_report))

    def follow_grade_batch(self, batch_id: str, *, interval: float = 0.5) -> Iterator[GradeBatchPublic]:
        """The batch's status every `interval` seconds until every line is graded or refused."""
        while True:
            batch = self.get_grade_batch(batch_id)
            yield batch
            if batch.status in BATCH_DONE:
                return
            time.sleep(interval)

    def iter_grade_batch_results(
        self, batch_id: str, *, page_size: int = 1000, redact: bool = False
    ) -> Iterator[BatchResult]:
        return self._pages(
            lambda cursor: self._send(calls.grade_batch_results(batch_id, cursor, page_size, redact))
        )

    def iter_grade_batch_errors(self, batch_id: str, *, page_size: int = 1000) -> Iterator[BadLine]:
        return self._pages(lambda cursor: self._send(calls.grade_batch_errors(batch_id, cursor, page_size)))

    def export_evaluation(
        self, evaluation_id: str, *, fmt: str = "csv", redact: bool = False, **filters: str | None
    ) -> Iterator[bytes]:
        """The items as a CSV or Parquet file, chunk by chunk as it streams (filters as `/results` takes them)."""
        return self._chunks(calls.export_evaluation(evaluation_id, fmt, redact, **filters))

    def export_grade_batch(self, batch_id: str, *, fmt: str = "jsonl", redact: bool = False) -> Iterator[str]:
        """The results file line by line as it streams (jsonl or csv), for batches of any size."""
        try:
            yield from (line for line in self._lines(calls.export_grade_batch(batch_id, fmt, redact)) if line)
        except httpx.HTTPError as exc:
            raise unreachable(self.base_url, exc) from None
