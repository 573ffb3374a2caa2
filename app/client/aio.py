"""AsyncHelmbenchClient: the same operations as HelmbenchClient for asyncio code; only the sending differs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Mapping
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


class AsyncHelmbenchClient:
    """One async connection pool to one server; each method awaits one operation of `app.client.calls`."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        key: str | None = None,
        *,
        timeout: float = 30.0,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = http or httpx.AsyncClient(base_url=self.base_url, timeout=timeout)
        if key:
            self.http.headers["Authorization"] = f"Bearer {key}"

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> AsyncHelmbenchClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def _send(self, call: Call[T]) -> T:
        try:
            response = await self.http.request(call.method, call.path, **call.request())
        except httpx.HTTPError as exc:
            raise unreachable(self.base_url, exc) from None
        return calls.answer(call, response)

    async def _lines(self, call: Call[Any], timeout: httpx.Timeout | None = None) -> AsyncIterator[str]:
        extra = {"timeout": timeout} if timeout is not None else {}
        async with self.http.stream(call.method, call.path, **call.request(), **extra) as response:
            if not response.is_success:
                await response.aread()
                raise_for_problem(response)
            async for line in response.aiter_lines():
                yield line

    async def _chunks(self, call: Call[Any]) -> AsyncIterator[bytes]:
        try:
            async with self.http.stream(call.method, call.path, **call.request()) as response:
                if not response.is_success:
                    await response.aread()
                    raise_for_problem(response)
                async for chunk in response.aiter_bytes():
                    yield chunk
        except httpx.HTTPError as exc:
            raise unreachable(self.base_url, exc) from None

    async def _pages(self, fetch: Callable[[str | None], Awaitable[Page[T]]]) -> AsyncIterator[T]:
        cursor: str | None = None
        while True:
            page = await fetch(cursor)
            for item in page.items:
                yield item
            cursor = page.next_cursor
            if not cursor:
                return

    async def create_target(self, body: TargetCreate | Mapping[str, Any]) -> TargetPublic:
        return await self._send(calls.create_target(body))

    async def list_targets(self) -> list[TargetPublic]:
        return await self._send(calls.list_targets())

    async def get_target(self, target_id: str) -> TargetPublic:
        return await self._send(calls.get_target(target_id))

    async def start_evaluation(
        self, body: EvaluationCreate | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> EvaluationAccepted:
        return await self._send(calls.start_evaluation(body, idempotency_key))

    async def list_evaluations(self, *, cursor: str | None = None, limit: int = 50) -> EvaluationPage:
        return await self._send(calls.list_evaluations(cursor, limit))

    def iter_evaluations(self, *, page_size: int = 50) -> AsyncIterator[EvaluationPublic]:
        return self._pages(lambda cursor: self.list_evaluations(cursor=cursor, limit=page_size))

    async def get_evaluation(self, evaluation_id: str) -> EvaluationPublic:
        return await self._send(calls.get_evaluation(evaluation_id))

    async def cancel_evaluation(self, evaluation_id: str) -> EvaluationPublic:
        return await self._send(calls.cancel_evaluation(evaluation_id))

    async def delete_evaluation(self, evaluation_id: str, *, keep_report: bool = False) -> None:
        await self._send(calls.delete_evaluation(evaluation_id, keep_report))

    async def follow(self, evaluation_id: str, *, interval: float = 1.0) -> AsyncIterator[EvaluationPublic]:
        """The evaluation's status every `interval` seconds until it is terminal (the last one yielded)."""
        while True:
            evaluation = await self.get_evaluation(evaluation_id)
            yield evaluation
            if evaluation.status in TERMINAL:
                return
            await asyncio.sleep(interval)

    async def wait(self, evaluation_id: str, *, interval: float = 1.0) -> EvaluationPublic:
        """Waits until the evaluation is terminal; returns its final status."""
        final = None
        async for evaluation in self.follow(evaluation_id, interval=interval):
            final = evaluation
        assert final is not None  # follow yields at least once
        return final

    async def events(self, evaluation_id: str) -> AsyncIterator[ProgressEvent]:
        """Live progress as the server streams it, resuming after a dropped connection; ends with `end`."""
        decoder = SseDecoder()
        for _ in range(RECONNECTS):
            try:
                async for line in self._lines(calls.events(evaluation_id, decoder.headers()), STREAM_TIMEOUT):
                    if (event := decoder.feed(line)) is not None:
                        yield event
                        if event.end:
                            return
            except httpx.HTTPError:
                await asyncio.sleep(1.0)
        raise ApiError(None, "Unreachable", "the progress stream kept dropping; poll instead")

    async def report(self, evaluation_id: str) -> dict[str, Any]:
        return await self._send(calls.report(evaluation_id))

    async def results(
        self, evaluation_id: str, *, cursor: str | None = None, limit: int = 100, redact: bool = False
    ) -> ResultsPage:
        return await self._send(calls.results(evaluation_id, cursor, limit, redact))

    def iter_results(
        self, evaluation_id: str, *, page_size: int = 100, redact: bool = False
    ) -> AsyncIterator[ItemPublic]:
        return self._pages(
            lambda cursor: self.results(evaluation_id, cursor=cursor, limit=page_size, redact=redact)
        )

    async def compare(self, a: str, b: str) -> dict[str, Any]:
        return await self._send(calls.compare(a, b))

    async def leaderboard(
        self, *, cursor: str | None = None, limit: int | None = None, **filters: str
    ) -> Leaderboard:
        return await self._send(calls.leaderboard(cursor, limit, **filters))

    async def benchmark(self) -> dict[str, Any]:
        return await self._send(calls.benchmark())

    async def grade(self, transcript: Mapping[str, Any], *, redact: bool = False) -> GradeResult:
        return await self._send(calls.grade(transcript, redact))

    async def submit_grade_batch(
        self, content: bytes | AsyncIterable[bytes], *, redact: bool = False
    ) -> GradeBatchAccepted:
        return await self._send(calls.submit_grade_batch(content, redact))

    async def get_grade_batch(self, batch_id: str) -> GradeBatchPublic:
        return await self._send(calls.get_grade_batch(batch_id))

    async def delete_grade_batch(self, batch_id: str, *, keep_report: bool = False) -> None:
        await self._send(calls.delete_grade_batch(batch_id, keep_report))

    async def follow_grade_batch(
        self, batch_id: str, *, interval: float = 0.5
    ) -> AsyncIterator[GradeBatchPublic]:
        while True:
            batch = await self.get_grade_batch(batch_id)
            yield batch
            if batch.status in BATCH_DONE:
                return
            await asyncio.sleep(interval)

    def iter_grade_batch_results(
        self, batch_id: str, *, page_size: int = 1000, redact: bool = False
    ) -> AsyncIterator[BatchResult]:
        return self._pages(
            lambda cursor: self._send(calls.grade_batch_results(batch_id, cursor, page_size, redact))
        )

    def iter_grade_batch_errors(self, batch_id: str, *, page_size: int = 1000) -> AsyncIterator[BadLine]:
        return self._pages(lambda cursor: self._send(calls.grade_batch_errors(batch_id, cursor, page_size)))

    def export_evaluation(
        self, evaluation_id: str, *, fmt: str = "csv", redact: bool = False, **filters: str | None
    ) -> AsyncIterator[bytes]:
        return self._chunks(calls.export_evaluation(evaluation_id, fmt, redact, **filters))

    async def export_grade_batch(
        self, batch_id: str, *, fmt: str = "jsonl", redact: bool = False
    ) -> AsyncIterator[str]:
        try:
            async for line in self._lines(calls.export_grade_batch(batch_id, fmt, redact)):
                if line:
                    yield line
        except httpx.HTTPError as exc:
            raise unreachable(self.base_url, exc) from None
