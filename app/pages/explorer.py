"""What the failures explorer shows: one evaluation's items narrowed by the results filters, a page at a time,
and one item's transcript with its grades. The same filters as the JSON results, so a figure of the report, its
explorer page and the API agree on which items are behind it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from sqlmodel import Session

from app.benchmark.loader import Library
from app.benchmark.verdicts import GRADED
from app.grading.grades.verdict import likert_view
from app.kinds.classification import CLASSIFICATION
from app.kinds.registry import conversation_kinds
from app.kinds.single_reply import SINGLE_REPLY
from app.pages.views import FailingItem, explore_link, item_views, visible_evaluation
from app.services.result_filters import CHECK_NAMES, CRISIS_CATEGORIES, VERDICTS, ResultFilters, item_filter
from app.services.results import item_rows
from app.store import items as item_store
from app.store.models import Evaluation

PAGE = 50  # items per explorer page


@dataclass(frozen=True)
class Option:
    value: str
    label: str


@dataclass
class ExplorerView:
    evaluation: Evaluation
    base: str  # /evaluations/{id}, or /shared/{token} for a share link's reader
    filters: ResultFilters
    items: list[FailingItem]
    next_cursor: str | None
    counts: dict[str, int]  # verdict → items the filters select; "not graded yet" (or "labelled") for none
    options: dict[str, list[Option]]  # filter field → its choices, labelled from the library
    transcripts: bool
    first_page: bool = True
    limit: int = PAGE
    labels: dict[str, bool] = field(default_factory=dict)  # a classification item's key → its label was right

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def graded(self) -> int:
        return sum(n for verdict, n in self.counts.items() if verdict in GRADED)

    def link(self, **changes: str | None) -> str:
        """This page's filters with some changed (None drops one); a new filter starts again at the first page."""
        params = {k: v for k, v in asdict(self.filters).items() if v}
        if self.limit != PAGE:
            params["limit"] = str(self.limit)
        params.update({k: v for k, v in changes.items() if v})
        for k, v in changes.items():
            if v is None:
                params.pop(k, None)
        return explore_link(self.base, params)

    def next_link(self) -> str:
        return self.link(cursor=self.next_cursor)

    def item_link(self, key: str) -> str:
        return f"{self.base}/items/{key}"


@dataclass
class ItemView:
    evaluation: Evaluation
    base: str
    item: FailingItem
    index: int
    score: float | None
    likert: dict[str, Any] | None
    checks: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    transcripts: bool = False


# A conversation is stored under one slot for scenario, message and user (CONV-…, SIM-…): of the matrix's filters
# only the verdict and the condition select among them, so only those are offered for such a run.
CONVERSATION_FILTERS = ("verdict", "condition")
# A classification run's items have no verdict, only a label right or wrong: filtered by what was labelled.
CLASSIFICATION_FILTERS = ("pillar", "behavior", "scenario", "crisis_category")


def _run_kind(session: Session, library: Library, ev: Evaluation) -> str:
    """The kind stored with the run's items; before any is written, the kind its suite names."""
    stored = item_store.first_item_kind(session=session, evaluation_id=ev.id)
    spec = library.suites.get(ev.suite)
    return stored or (spec.kind if spec is not None else SINGLE_REPLY.name)


def _options(library: Library, kind: str) -> dict[str, list[Option]]:
    options = _all_options(library)
    if kind in conversation_kinds():
        return {name: options[name] for name in CONVERSATION_FILTERS}
    if kind == CLASSIFICATION.name:
        return {name: options[name] for name in CLASSIFICATION_FILTERS}
    return options


def _all_options(library: Library) -> dict[str, list[Option]]:
    return {
        "pillar": [Option(p.id, f"{p.id} {p.name}") for p in library.pillars.values()],
        "behavior": [Option(b.id, f"{b.id} {b.name}") for b in library.behaviors.values()],
        "scenario": [Option(s.id, f"{s.id} {s.title}") for s in library.scenarios.values()],
        "condition": [Option(c.id, c.name) for c in library.conditions.values()],
        "country": [Option(c.code, c.name) for c in library.countries.values()],
        "crisis_category": [Option(c, c.replace("_", " ")) for c in CRISIS_CATEGORIES],
        "verdict": [Option(v, v) for v in VERDICTS],
        "check": [Option(c, c.replace("_", " ")) for c in CHECK_NAMES],
    }


def explorer_view(
    *,
    session: Session,
    library: Library,
    evaluation_id: str,
    team_id: str | None,
    filters: ResultFilters,
    cursor: str | None,
    limit: int = PAGE,
    base: str = "",
) -> ExplorerView | None:
    """A page of the items the filters select, seen as the report page is seen (None: a 404); a filter the
    library does not know is refused by the filters' own Invalid, naming its field."""
    where = item_filter(filters, library)
    visible = visible_evaluation(session=session, evaluation_id=evaluation_id, team_id=team_id)
    if visible is None:
        return None
    ev, owner = visible
    transcripts = owner or ev.share_transcripts
    rows, next_cursor = item_rows(session=session, evaluation=ev, cursor=cursor, limit=limit, where=where)
    counts = item_store.verdict_counts(session=session, evaluation_id=ev.id, where=where)
    kind = _run_kind(session, library, ev)
    unverdicted = "labelled" if kind == CLASSIFICATION.name else "not graded yet"
    return ExplorerView(
        evaluation=ev,
        base=base or f"/evaluations/{ev.id}",
        filters=filters,
        items=item_views(rows, library, transcripts=False),
        next_cursor=next_cursor,
        counts={
            verdict or unverdicted: n for verdict, n in sorted(counts.items(), key=lambda kv: str(kv[0]))
        },
        options=_options(library, kind),
        transcripts=transcripts,
        first_page=cursor is None,
        limit=limit,
        labels={
            r.key: r.checks["label_correct"]
            for r in rows
            if isinstance((r.checks or {}).get("label_correct"), bool)
        },
    )


def item_view(
    *, session: Session, library: Library, evaluation_id: str, team_id: str | None, key: str, base: str = ""
) -> ItemView | None:
    """One item's transcript, grades and reasons; None where the evaluation or the item is not to be seen."""
    visible = visible_evaluation(session=session, evaluation_id=evaluation_id, team_id=team_id)
    if visible is None:
        return None
    ev, owner = visible
    row = item_store.find_item(session=session, evaluation_id=ev.id, key=key)
    if row is None:
        return None
    transcripts = (owner or ev.share_transcripts) and ev.transcripts_deleted_at is None
    [shown] = item_views([row], library, transcripts=transcripts) or [_unknown(row.key, row.verdict)]
    return ItemView(
        evaluation=ev,
        base=base or f"/evaluations/{ev.id}",
        item=shown,
        index=row.idx,
        score=row.score,
        likert=likert_view(row.likert, row.score),
        checks=dict(row.checks or {}),
        error=row.error_class,
        transcripts=transcripts,
    )


def _unknown(key: str, verdict: str | None) -> FailingItem:
    """An item whose scenario the library no longer holds: its grades still show, its names cannot."""
    return FailingItem(
        code=key,
        scenario="",
        title="(not in this benchmark version)",
        condition="",
        country="",
        crisis_category="",
        verdict=verdict or "",
        reasons=[],
        system=None,
        turns=[],
        key=key,
    )
