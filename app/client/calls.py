"""Every API operation the clients offer, described once: method, path, query, body and how to read the answer.

The sync and async clients only send a `Call` and hand its response to `answer`, so a path, a parameter or a
response model is written here and nowhere else.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter

from app.client.errors import raise_for_problem
from app.grading.result import GradeResult
from app.schemas import (
    BadLinesPage,
    BatchResultsPage,
    EvaluationAccepted,
    EvaluationCreate,
    EvaluationPage,
    EvaluationPublic,
    GradeBatchAccepted,
    GradeBatchPublic,
    Leaderboard,
    ResultsPage,
    TargetCreate,
    TargetPublic,
)

T = TypeVar("T")
I = TypeVar("I", covariant=True)  # noqa: E741
NDJSON = {"Content-Type": "application/x-ndjson"}
STREAM_TIMEOUT = httpx.Timeout(30.0, read=60.0)  # the server pings every 15 s; a silent minute is a drop
RECONNECTS = 30  # a progress stream dropped this many times running is given up (poll instead)


class Page(Protocol[I]):
    """Any of the API's cursor-paginated answers."""

    @property
    def items(self) -> list[I]: ...  # pragma: no cover

    @property
    def next_cursor(self) -> str | None: ...  # pragma: no cover


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request and the function that turns its JSON answer into T."""

    method: str
    path: str
    read: Callable[[Any], T]
    params: dict[str, Any] = field(default_factory=dict)
    json: Any = None
    content: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    def request(self) -> dict[str, Any]:
        """The keyword arguments of httpx's `request`/`stream` for this call."""
        kwargs: dict[str, Any] = {"params": self.params, "headers": self.headers}
        if self.json is not None:
            kwargs["json"] = self.json
        if self.content is not None:
            kwargs["content"] = self.content
        return kwargs


def answer(call: Call[T], response: httpx.Response) -> T:
    """The typed answer, or ApiError carrying the problem+json."""
    raise_for_problem(response)
    return call.read(response.json() if response.content else None)


def _model(model: type[BaseModel]) -> Callable[[Any], Any]:
    return model.model_validate


def _body(body: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
    """A request model as the server takes it (fields left unset stay unset), or a mapping sent as given, so
    the server, not the client, names the field at fault."""
    if isinstance(body, BaseModel):
        return body.model_dump(mode="json", exclude_unset=True)
    return dict(body)


def _query(**params: Any) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


def _nothing(_: Any) -> None:
    return None


def _as_dict(body: Any) -> dict[str, Any]:
    return dict(body)


_TARGETS = TypeAdapter(list[TargetPublic])


def create_target(body: TargetCreate | Mapping[str, Any]) -> Call[TargetPublic]:
    return Call("POST", "/v1/targets", _model(TargetPublic), json=_body(body))


def list_targets() -> Call[list[TargetPublic]]:
    return Call("GET", "/v1/targets", _TARGETS.validate_python)


def get_target(target_id: str) -> Call[TargetPublic]:
    return Call("GET", f"/v1/targets/{target_id}", _model(TargetPublic))


def start_evaluation(
    body: EvaluationCreate | Mapping[str, Any], idempotency_key: str | None = None
) -> Call[EvaluationAccepted]:
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    return Call("POST", "/v1/evaluations", _model(EvaluationAccepted), json=_body(body), headers=headers)


def list_evaluations(cursor: str | None = None, limit: int = 50) -> Call[EvaluationPage]:
    return Call("GET", "/v1/evaluations", _model(EvaluationPage), params=_query(cursor=cursor, limit=limit))


def get_evaluation(evaluation_id: str) -> Call[EvaluationPublic]:
    return Call("GET", f"/v1/evaluations/{evaluation_id}", _model(EvaluationPublic))


def cancel_evaluation(evaluation_id: str) -> Call[EvaluationPublic]:
    return Call("POST", f"/v1/evaluations/{evaluation_id}/cancel", _model(EvaluationPublic))


def delete_evaluation(evaluation_id: str, keep_report: bool = False) -> Call[None]:
    params = {"keep_report": "true"} if keep_report else {}
    return Call("DELETE", f"/v1/evaluations/{evaluation_id}", _nothing, params=params)


def events(evaluation_id: str, last: dict[str, str]) -> Call[None]:
    """The live-progress stream (read line by line by the clients, never as one JSON body)."""
    return Call("GET", f"/v1/evaluations/{evaluation_id}/events", _nothing, headers=last)


def report(evaluation_id: str) -> Call[dict[str, Any]]:
    return Call("GET", f"/v1/evaluations/{evaluation_id}/report", _as_dict)


def results(
    evaluation_id: str, cursor: str | None = None, limit: int = 100, redact: bool = False
) -> Call[ResultsPage]:
    params = _query(cursor=cursor, limit=limit, redact="true" if redact else None)
    return Call("GET", f"/v1/evaluations/{evaluation_id}/results", _model(ResultsPage), params=params)


def compare(a: str, b: str) -> Call[dict[str, Any]]:
    return Call("GET", "/v1/compare", _as_dict, params={"a": a, "b": b})


def leaderboard(
    cursor: str | None = None,
    limit: int | None = None,
    *,
    benchmark_version: str | None = None,
    country: str | None = None,
    condition: str | None = None,
    suite: str | None = None,
    sort: str | None = None,
    order: str | None = None,
) -> Call[Leaderboard]:
    params = _query(
        cursor=cursor,
        limit=limit,
        benchmark_version=benchmark_version,
        country=country,
        condition=condition,
        suite=suite,
        sort=sort,
        order=order,
    )
    return Call("GET", "/v1/leaderboard", _model(Leaderboard), params=params)


def benchmark() -> Call[dict[str, Any]]:
    """The catalogue: version, pillars and behaviours with their names, scenarios, suites."""
    return Call("GET", "/v1/benchmark", _as_dict)


def grade(transcript: Mapping[str, Any], redact: bool = False) -> Call[GradeResult]:
    body = {**transcript, "redact": True} if redact else dict(transcript)
    return Call("POST", "/v1/grade", _model(GradeResult), json=body)


def submit_grade_batch(content: Any, redact: bool = False) -> Call[GradeBatchAccepted]:
    """content: JSONL bytes, or an (async) iterable of byte chunks streamed as they are read; redact: personal
    details masked by the server before any line is stored."""
    params = _query(redact="true" if redact else None)
    return Call(
        "POST",
        "/v1/grade/batches",
        _model(GradeBatchAccepted),
        content=content,
        headers=NDJSON,
        params=params,
    )


def get_grade_batch(batch_id: str) -> Call[GradeBatchPublic]:
    return Call("GET", f"/v1/grade/batches/{batch_id}", _model(GradeBatchPublic))


def delete_grade_batch(batch_id: str, keep_report: bool = False) -> Call[None]:
    params = {"keep_report": "true"} if keep_report else {}
    return Call("DELETE", f"/v1/grade/batches/{batch_id}", _nothing, params=params)


def grade_batch_results(
    batch_id: str, cursor: str | None = None, limit: int = 1000, redact: bool = False
) -> Call[BatchResultsPage]:
    params = _query(cursor=cursor, limit=limit, redact="true" if redact else None)
    return Call("GET", f"/v1/grade/batches/{batch_id}/results", _model(BatchResultsPage), params=params)


def grade_batch_errors(batch_id: str, cursor: str | None = None, limit: int = 1000) -> Call[BadLinesPage]:
    params = _query(cursor=cursor, limit=limit)
    return Call("GET", f"/v1/grade/batches/{batch_id}/errors", _model(BadLinesPage), params=params)


def export_grade_batch(batch_id: str, fmt: str = "jsonl", redact: bool = False) -> Call[None]:
    """The batch's results as one streamed file (read line by line by the clients)."""
    params = _query(format=fmt, redact="true" if redact else None)
    return Call("GET", f"/v1/grade/batches/{batch_id}/export", _nothing, params=params)


def export_evaluation(
    evaluation_id: str, fmt: str = "csv", redact: bool = False, **filters: str | None
) -> Call[None]:
    """An evaluation's items, one row each, as one streamed file (csv or parquet; read chunk by chunk)."""
    params = _query(format=fmt, redact="true" if redact else None, **filters)
    return Call("GET", f"/v1/evaluations/{evaluation_id}/export", _nothing, params=params)


def ndjson(transcripts: Iterable[Mapping[str, Any]]) -> bytes:
    """Transcripts (mappings) as the JSON Lines body a grade batch takes."""
    return b"".join(json.dumps(t, ensure_ascii=False).encode() + b"\n" for t in transcripts)
