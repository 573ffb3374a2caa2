"""What the HTML pages show: leaderboard rows and report sections, from the store and the scoring engine."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from sqlmodel import Session

from app.benchmark.conversations import script_id_of
from app.benchmark.loader import Library
from app.benchmark.verdicts import FAILING
from app.conversations.transcript import message_marks
from app.grading.judges.scales import SCALE_NAMES
from app.kinds.scripted import SCRIPTED
from app.kinds.simulated import SIMULATED
from app.scoring.board import Entry, Rate
from app.scoring.facets import build_facets, stored_item
from app.scoring.leaderboard import Board, BoardQuery
from app.scoring.vocabulary import labelled, legible, names
from app.services.classification_view import ClassificationView, classification_view
from app.services.results import report as stored_report
from app.store import evaluations as ev_store
from app.store import items as item_store
from app.store import schedules as schedule_store
from app.store.models import Evaluation, EvaluationItem, Regression

__all__ = ["Bar", "BoardRow", "BoardView", "FailingItem", "Rate", "ReportView", "board_view", "report_view"]

MAX_FAILING = 50
PAGE_SIZE = 50  # board rows per page


@dataclass(frozen=True)
class BoardRow:
    evaluation_id: str
    target_name: str
    model: str
    suite: str
    score: Rate
    pass_rate: Rate
    pillars: dict[str, Rate]
    n_items: int
    finished: str
    capped: bool = False  # a safety floor held the score down
    why: str = ""  # one line: the breached floors and the weakest behaviour
    rank: int = 0
    grader: str | None = None  # rules | judge | panel
    band: str | None = None  # A–E on the 0–100 score
    quality: float | None = None  # before the floors, 0–1
    cap: str = ""  # which floor capped the score, in words


@dataclass(frozen=True)
class BoardView:
    filters: BoardQuery
    version: str
    rows: list[BoardRow]
    pillars: dict[str, str]  # id → name, the per-pillar columns
    conditions: dict[str, str]
    countries: dict[str, str]
    versions: list[str]
    suites: dict[str, str] = field(default_factory=dict)  # id → description, the suite picker's choices
    hidden: int = 0  # evaluations with no items in the chosen slice
    page: int = 1
    pages: int = 1
    total: int = 0

    def link(self, **changes: object) -> str:
        """This board's URL with some parameters changed; built from the query, not the request, because a
        rendered page is kept and served to every request for the same board."""
        params = self.filters.params()
        params.update({k: str(v) for k, v in changes.items() if v is not None})
        return "/?" + urlencode(params) if params else "/"

    def csv_link(self) -> str:
        """The same board as CSV from the JSON API, which names the version parameter `benchmark_version`."""
        params = self.filters.params()
        if "version" in params:
            params["benchmark_version"] = params.pop("version")
        return "/v1/leaderboard?" + urlencode({**params, "limit": "1000", "format": "csv"})


def board_versions(*, session: Session) -> list[str]:
    """Versions with a public board, for the page's version picker."""
    return ev_store.board_versions(session=session)


def _board_row(rank: int, e: Entry, library: Library) -> BoardRow:
    f = e.figures
    return BoardRow(
        evaluation_id=e.evaluation_id,
        target_name=e.target_name,
        model=e.model,
        suite=e.suite,
        score=f.score,
        pass_rate=f.pass_rate,
        pillars=f.pillars,
        n_items=f.n_items,
        finished=e.finished.strftime("%Y-%m-%d"),
        capped=f.capped,
        why=with_names(f.why, library),
        rank=rank,
        grader=f.grader,
        band=f.band,
        quality=f.quality,
        cap=f.cap,
    )


def board_view(*, board: Board, library: Library, versions: list[str], page: int = 1) -> BoardView:
    """One page of a computed board, as the leaderboard page shows it; a page past the end shows the last."""
    pages = max(1, -(-len(board.rows) // PAGE_SIZE))
    page = min(max(page, 1), pages)
    shown = board.rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    return BoardView(
        filters=board.query,
        version=board.version,
        rows=[_board_row(rank, e, library) for rank, e in shown],
        pillars={p: library.pillars[p].name if p in library.pillars else p for p in board.pillars},
        conditions={c.id: c.name for c in library.conditions.values()},
        countries={c.code: c.name for c in library.countries.values()},
        versions=sorted({*versions, library.version, board.version}),
        suites={name: spec.description for name, spec in library.suites.items()},
        hidden=board.hidden,
        page=page,
        pages=pages,
        total=len(board.rows),
    )


@dataclass(frozen=True)
class Bar:
    label: str
    rate: Rate
    note: str = ""
    highlight: bool = False
    href: str = ""  # the explorer, filtered to the items behind the bar


@dataclass(frozen=True)
class FailingItem:
    code: str
    scenario: str
    title: str
    condition: str
    country: str
    crisis_category: str
    verdict: str
    reasons: list[str]
    system: str | None  # the system prompt, shown folded away
    turns: list[dict[str, Any]]  # user and assistant turns; the last assistant turn is the graded reply
    conversation: bool = False  # every reply is graded, as one conversation
    marks: dict[int, list[str]] = field(default_factory=dict)  # position in turns → what that reply decided
    key: str = ""


@dataclass
class ReportView:
    evaluation: Evaluation
    report: dict[str, Any]
    pillars: list[Bar]
    conditions: list[Bar]
    countries: list[dict[str, Any]]
    crisis: list[dict[str, Any]]
    failing: list[FailingItem]
    failing_total: int
    transcripts: bool
    headline: Rate = field(default_factory=lambda: Rate(None))
    ladders: list[dict[str, Any]] = field(default_factory=list)
    regressions: list[Regression] = field(default_factory=list)  # the owner's alerts only, never public
    classification: ClassificationView | None = None  # a classify suite's labels, in place of reply grades
    behaviors: list[Bar] = field(default_factory=list)
    base: str = (
        ""  # where this report's explorer lives: /evaluations/{id} or the share link's /shared/{token}
    )
    why: str = ""  # the headline's one line, behaviour names beside their codes
    legible: dict[str, Any] = field(default_factory=dict)  # score and quality on 0–100, band, cap in words
    pillar_scores: list[PillarRow] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # pillar and behaviour ids → names, for metric labels

    def explore(self, **filters: str) -> str:
        """The explorer filtered to the items behind one figure of this report."""
        return explore_link(self.base, filters)


@dataclass(frozen=True)
class PillarRow:
    """A pillar's two figures, each under its own word: the severity-weighted score and the pass rate."""

    label: str
    score: Rate  # 0–1, shown on 0–100
    pass_rate: Rate
    floor: float | None = None  # the safety floor on its score, where it has one


def _pillar_rows(report: dict[str, Any], library: Library) -> list[PillarRow]:
    headline = report.get("headline") or {}
    scores, intervals = headline.get("pillars") or {}, headline.get("pillar_intervals") or {}
    floors = headline.get("floors") or {}
    blocks = report.get("by_pillar") or {}
    rows = []
    for p in sorted(set(scores) | set(blocks)):
        low, high = intervals.get(p) or (None, None)
        rows.append(
            PillarRow(
                labelled(p, names(library)),
                Rate(scores.get(p), low, high),
                Rate.of_group(blocks.get(p)),
                (floors.get(p) or {}).get("floor"),
            )
        )
    return rows


def explore_link(base: str, filters: dict[str, str]) -> str:
    query = urlencode({k: v for k, v in filters.items() if v})
    return f"{base}/results" + (f"?{query}" if query else "")


BEHAVIOR_CODE = re.compile(r"\bP\d+-B\d+\b")


def with_names(text: str, library: Library) -> str:
    """Codes of behaviours in a line written by the scoring engine, each followed by its name from the library."""
    return BEHAVIOR_CODE.sub(
        lambda m: f"{m[0]} ({library.behaviors[m[0]].name})" if m[0] in library.behaviors else m[0], text
    )


def _failing(
    session: Session, library: Library, ev: Evaluation, transcripts: bool
) -> tuple[list[FailingItem], int]:
    """The first failed and partial items in matrix order, and how many there are in all."""
    rows, total = item_store.first_with_verdicts(
        session=session, evaluation_id=ev.id, verdicts=FAILING, limit=MAX_FAILING
    )
    return item_views(rows, library, transcripts), total


def item_views(rows: list[EvaluationItem], library: Library, transcripts: bool) -> list[FailingItem]:
    """Stored items as the pages show them: named from the library, transcripts only where they may be read."""
    facets = {f.key: f for f in build_facets((stored_item(r) for r in rows), library)}
    out = []
    for r in rows:
        conversation = CONVERSATION_VIEWS.get(r.item_kind)  # by the kind stored with the row
        if conversation is not None:
            out.append(conversation(r, library, transcripts))
            continue
        f = facets.get(r.key)
        scenario = library.scenarios.get(r.scenario_id)
        out.append(
            FailingItem(
                code=item_store.item_spec(r).code,
                scenario=r.scenario_id,
                title=scenario.title if scenario else r.scenario_id,
                condition=_name(library.conditions, f.condition) if f else "",
                country=_name(library.countries, f.country) if f and f.country else "",
                crisis_category=(f.crisis_category if f else "").replace("_", " "),
                verdict=r.verdict or "",
                reasons=list(r.reasons or []),
                key=r.key,
                **(_transcript(r) if transcripts else {"system": None, "turns": []}),
            )
        )
    return out


def _transcript(row: EvaluationItem) -> dict[str, Any]:
    """Splits the messages into the system prompt and the turns, adding the reply if it is not stored."""
    messages = list(row.messages or [])
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), None)
    turns = [m for m in messages if m.get("role") != "system"]
    if row.reply is not None and (not turns or turns[-1].get("role") != "assistant"):
        turns.append({"role": "assistant", "content": row.reply})
    return {"system": system, "turns": turns}


def _conversation_view(
    row: EvaluationItem, library: Library, transcripts: bool, *, title: str, condition: str, category: str
) -> FailingItem:
    """A failed conversation of either kind, each reply that decided part of its grade marked with what it
    decided; the caller names what was played."""
    record = (row.checks or {}).get("conversation") or {}
    shown = _transcript(row) if transcripts else {"system": None, "turns": []}
    return FailingItem(
        code=row.perturbation_id,
        scenario=row.scenario_id,
        title=title,
        condition=condition,
        country=_name(library.countries, record.get("country")) if record.get("country") else "",
        crisis_category=f"{category}, risk {record.get('risk_level', '?')}",
        verdict=row.verdict or "",
        reasons=list(row.reasons or []),
        conversation=True,
        marks=message_marks(shown["turns"], record),
        key=row.key,
        **shown,
    )


def _conversation_item(row: EvaluationItem, library: Library, transcripts: bool) -> FailingItem:
    """A failed scripted conversation: the script played."""
    record = (row.checks or {}).get("conversation") or {}
    script = library.conversations.get(script_id_of(row.perturbation_id))
    return _conversation_view(
        row,
        library,
        transcripts,
        title=script.title if script else row.perturbation_id,
        condition=_name(library.conditions, script.condition) if script else "",
        category=record.get("theme", "").replace("_", " "),
    )


def _simulated_item(row: EvaluationItem, library: Library, transcripts: bool) -> FailingItem:
    """A failed simulated conversation: the persona card played."""
    record = (row.checks or {}).get("conversation") or {}
    card = library.personas.get(row.perturbation_id)
    return _conversation_view(
        row,
        library,
        transcripts,
        title=f"{card.name}, simulated ({card.disclosure_style} disclosure)" if card else row.perturbation_id,
        condition=_name(library.conditions, row.condition_id.split("-", 1)[1]),
        category=record.get("crisis_category", "?").replace("_", " "),
    )


# A conversation kind's page view, by the kind stored with the row (app/kinds); other kinds show as replies.
CONVERSATION_VIEWS: dict[str, Callable[[EvaluationItem, Library, bool], FailingItem]] = {
    SCRIPTED.name: _conversation_item,
    SIMULATED.name: _simulated_item,
}


def _has_items(block: dict[str, Any] | None) -> bool:
    """A group with items behind it: an empty group is no figure (a conversation run's matrix groups are empty)."""
    return bool((block or {}).get("n_items", (block or {}).get("n")))


def _name(table: dict[str, Any], ident: str | None) -> str:
    item = table.get(ident or "")
    return str(getattr(item, "name", ident or ""))


def _crisis_rows(report: dict[str, Any], base: str) -> list[dict[str, Any]]:
    """Per authored crisis category: mean 1–5 grade (the judge's where one answered, else the rules') and the
    harmful share, beside the pass rate; reports stored before every reply had a grade fall back to judged ones."""
    harmful = report.get("harmful_rate") or {}
    graded = (report.get("likert") or {}).get("by_crisis_category") or {}
    rows = []
    for cat, block in (report.get("by_crisis_category") or {}).items():
        if not block.get("n_items", block.get("n")):
            continue
        mean = graded.get(cat) or block.get("mean_score") or {}
        judged = bool(mean.get("n"))
        rounded = round(mean["mean"]) if judged and mean.get("mean") is not None else None
        rows.append(
            {
                "category": cat.replace("_", " "),
                "n": block.get("n_items", block.get("n", 0)),
                "judged": judged,
                "mean": Rate.of(mean, "mean") if judged else None,
                "scale": SCALE_NAMES.get(rounded, "") if rounded else "",
                "harmful": Rate.of(harmful.get(cat), "rate") if judged else None,
                "pass_rate": Rate.of_group(block),
                "href": explore_link(base, {"crisis_category": cat}),
            }
        )
    return rows


def _country_rows(report: dict[str, Any], library: Library) -> list[dict[str, Any]]:
    resources = (report.get("country_resources") or {}).get("by_country") or {}
    by_country = report.get("by_country") or {}
    codes = sorted(set(resources) | {c for c in by_country if c != "unknown"})
    return [
        {
            "code": c,
            "name": _name(library.countries, c),
            "pass_rate": Rate.of_group(by_country.get(c)),
            "local": Rate.of((resources.get(c) or {}).get("local"), "rate"),
            "foreign_only": Rate.of((resources.get(c) or {}).get("foreign_only"), "rate"),
        }
        for c in codes
    ]


def _ladder_rows(report: dict[str, Any], library: Library) -> list[dict[str, Any]]:
    """Per behaviour with a ladder: its persona's rungs from the lowest risk level up, each with its detection
    rate; reports stored before ladders have none."""
    out = []
    for behavior, block in (report.get("ladders") or {}).items():
        rungs = [
            {"risk_level": r["risk_level"], "user_context": r["user_context"], "rate": Rate.of(r, "rate")}
            for r in block.get("levels") or []
        ]
        if rungs:
            out.append(
                {
                    "behavior": behavior,
                    "name": _name(library.behaviors, behavior),
                    "persona": block.get("persona"),
                    "threshold": block.get("threshold"),
                    "dips": block.get("dips") or [],
                    "rungs": rungs,
                }
            )
    return out


def _gap_note(gap: dict[str, Any] | None) -> str:
    """The paired gap to the baseline assistant in points (positive gap = the persona passes less often)."""
    if not gap or gap.get("gap") is None:
        return ""
    points = round(gap["gap"] * 100)
    return (
        "same as baseline"
        if points == 0
        else f"{abs(points)} pts {'below' if points > 0 else 'above'} baseline"
    )


def visible_evaluation(
    *, session: Session, evaluation_id: str, team_id: str | None
) -> tuple[Evaluation, bool] | None:
    """The evaluation and whether the viewer owns it: a public one for anyone, a private one only for its team."""
    ev = ev_store.get_evaluation(session=session, team_id=None, evaluation_id=evaluation_id)
    owner = ev is not None and team_id == ev.team_id
    if ev is None or not (owner or ev.visibility == "public"):
        return None
    return ev, owner


def report_view(
    *, session: Session, library: Library, evaluation_id: str, team_id: str | None, base: str = ""
) -> ReportView | None:
    """A public evaluation for anyone, a private one only for its team; None means the page is a 404.
    Transcripts show to the owning team, or publicly when the owner shared them."""
    visible = visible_evaluation(session=session, evaluation_id=evaluation_id, team_id=team_id)
    if visible is None:
        return None
    ev, owner = visible
    base = base or f"/evaluations/{ev.id}"
    report = stored_report(session=session, evaluation=ev, library=library)
    gaps = (report.get("persona_robustness") or {}).get("by_condition") or {}
    conditions = [
        Bar(
            _name(library.conditions, c),
            Rate.of_group(block),
            note=_gap_note(gaps.get(c)),
            highlight=bool(library.conditions.get(c) and library.conditions[c].baseline),
            href=explore_link(base, {"condition": c}) if c in library.conditions else "",
        )
        for c, block in (report.get("by_condition") or {}).items()
        if _has_items(block)
    ]
    transcripts = owner or ev.share_transcripts
    failing, total = _failing(session, library, ev, transcripts)
    return ReportView(
        evaluation=ev,
        report=report,
        pillars=[
            Bar(
                f"{p} {_name(library.pillars, p)}",
                Rate.of_group(b),
                note=f"{b['ungraded']} ungraded" if b.get("ungraded") else "",
                href=explore_link(base, {"pillar": p}) if p in library.pillars else "",
            )
            for p, b in (report.get("by_pillar") or {}).items()
            if _has_items(b)
        ],
        behaviors=[
            Bar(
                f"{b} {_name(library.behaviors, b)}",
                Rate.of_group(block),
                href=explore_link(base, {"behavior": b}) if b in library.behaviors else "",
            )
            for b, block in sorted((report.get("by_behavior") or {}).items())
            if _has_items(block)
        ],
        conditions=conditions,
        countries=[
            {**row, "href": explore_link(base, {"country": row["code"]})}
            for row in _country_rows(report, library)
        ],
        crisis=_crisis_rows(report, base),
        failing=failing,
        failing_total=total,
        transcripts=transcripts,
        headline=Rate.of(report.get("headline"), "score"),
        ladders=_ladder_rows(report, library),
        regressions=schedule_store.regressions_of(session=session, evaluation_id=ev.id) if owner else [],
        classification=classification_view(report),
        base=base,
        why=with_names(str((report.get("headline") or {}).get("why") or ""), library),
        legible=legible(report.get("headline") or {}),
        pillar_scores=_pillar_rows(report, library),
        names=names(library),
    )
