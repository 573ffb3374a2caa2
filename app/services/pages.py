"""What the HTML pages show: leaderboard rows and report sections, from the store and the scoring engine."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.benchmark.loader import Library
from app.grading.scales import SCALE_NAMES
from app.scoring import metrics as m
from app.scoring.facets import Facet, StoredItem, build_facets
from app.scoring.headline import headline_score
from app.scoring.report import stored_items
from app.services.results import report as stored_report
from app.store import evaluations as ev_store
from app.store import schedules as schedule_store
from app.store.models import Evaluation, EvaluationItem, Regression

SORTS = ("score", "pass_rate", "model", "n_items", "finished")
FAILING = ("FAIL", "PARTIAL")
MAX_FAILING = 50


@dataclass(frozen=True)
class Rate:
    """A share with its 95% interval, as the pages print and draw it."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0
    basis: str = ""  # "rules only" when no judge has graded the group yet

    @classmethod
    def of(cls, block: dict[str, Any] | None, key: str = "pass_rate") -> Rate:
        """Reads {pass_rate|rate, interval, n} blocks of the report; a missing block is an empty rate."""
        if not block:
            return cls(None)
        interval = block.get("interval") or (None, None)
        return cls(block.get(key), interval[0], interval[1], int(block.get("n") or 0))

    @classmethod
    def of_group(cls, block: dict[str, Any] | None) -> Rate:
        """A group's pass rate; where nothing is graded yet (judge-only items), its rules-only rate."""
        rate = cls.of(block)
        rules = (block or {}).get("rules_pass_rate") or {}
        if rate.value is None and rules.get("rate") is not None:
            return replace(cls.of(rules, "rate"), basis="rules only")
        return rate


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


@dataclass(frozen=True)
class BoardFilters:
    condition: str | None = None
    country: str | None = None
    version: str | None = None
    sort: str = "score"
    order: Literal["asc", "desc"] = "desc"

    @property
    def sliced(self) -> bool:
        return bool(self.condition or self.country)


@dataclass(frozen=True)
class BoardView:
    filters: BoardFilters
    version: str
    rows: list[BoardRow]
    pillars: dict[str, str]  # id → name, the per-pillar columns
    conditions: dict[str, str]
    countries: dict[str, str]
    versions: list[str]
    hidden: int = 0  # evaluations with no items in the chosen slice


def _sort_value(row: BoardRow, sort: str) -> Any:
    if sort.startswith("pillar:"):
        return row.pillars.get(sort.split(":", 1)[1], Rate(None)).value
    return {
        "score": row.score.value,
        "pass_rate": row.pass_rate.value,
        "model": row.target_name.lower(),
        "n_items": row.n_items,
        "finished": row.finished,
    }.get(sort)


def _keep(f: Facet, filters: BoardFilters) -> bool:
    return (filters.condition in (None, f.condition)) and (filters.country in (None, f.country))


def _row(session: Session, library: Library, ev: Evaluation, filters: BoardFilters) -> BoardRow:
    """Unfiltered rows read the stored summary; a condition or country slice is recomputed from the items."""
    summary = ev.summary or {}
    if filters.sliced:
        facets = [
            f
            for f in build_facets(stored_items(session=session, evaluation_id=ev.id), library)
            if _keep(f, filters)
        ]
        summary = {
            "headline": headline_score(facets, library) if facets else {},
            "overall": m.summary(facets),
            "by_pillar": m.by(facets, lambda f: f.pillar),
            "n_items": len(facets),
        }
    headline = summary.get("headline") or {}
    return BoardRow(
        evaluation_id=ev.id,
        target_name=ev.target_name,
        model=ev.model,
        suite=ev.suite,
        score=Rate.of(headline, "score"),
        pass_rate=Rate.of_group(summary.get("overall")),
        pillars={p: Rate.of_group(r) for p, r in (summary.get("by_pillar") or {}).items()},
        n_items=int(summary.get("n_items") or 0),
        finished=ev.finished_at.strftime("%Y-%m-%d") if ev.finished_at else "",
        capped=bool(headline.get("capped")),
        why=str(headline.get("why") or ""),
    )


def leaderboard_view(*, session: Session, library: Library, filters: BoardFilters) -> BoardView:
    """Public, succeeded evaluations of one benchmark version, maybe sliced, sorted; no value sorts last."""
    everything = [e for e in ev_store.leaderboard(session=session, benchmark_version=None) if e.summary]
    versions = sorted({e.benchmark_version for e in everything} | {library.version})
    version = filters.version or library.version
    all_rows = [_row(session, library, e, filters) for e in everything if e.benchmark_version == version]
    rows = [r for r in all_rows if r.n_items or not filters.sliced]
    ranked = sorted(rows, key=lambda r: -(r.score.value if r.score.value is not None else -1.0))
    ranks = {r.evaluation_id: i for i, r in enumerate(ranked, start=1)}
    present = [r for r in rows if _sort_value(r, filters.sort) is not None]
    absent = [r for r in rows if _sort_value(r, filters.sort) is None]
    present.sort(key=lambda r: _sort_value(r, filters.sort), reverse=filters.order == "desc")
    pillar_ids = sorted({p for r in rows for p in r.pillars} | set(library.pillars))
    return BoardView(
        filters=filters,
        version=version,
        rows=[replace(r, rank=ranks[r.evaluation_id]) for r in present + absent],
        pillars={p: library.pillars[p].name if p in library.pillars else p for p in pillar_ids},
        conditions={c.id: c.name for c in library.conditions.values()},
        countries={c.code: c.name for c in library.countries.values()},
        versions=versions,
        hidden=len(all_rows) - len(rows),
    )


@dataclass(frozen=True)
class Bar:
    label: str
    rate: Rate
    note: str = ""
    highlight: bool = False


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
    regressions: list[Regression] = field(default_factory=list)  # the owner's alerts only, never public


def _stored(row: EvaluationItem) -> StoredItem:
    return StoredItem(
        row.key,
        row.scenario_id,
        row.condition_id,
        row.user_context_id,
        row.perturbation_id,
        row.repeat,
        row.verdict,
        row.score,
        row.checks,
        row.error_class,
    )


def _code(row: EvaluationItem) -> str:
    """The original test code, P#-B#-S#-C#[-U#]-PT#."""
    parts = [row.condition_id]
    if row.user_context_id:
        parts.append(row.user_context_id.rsplit("-", 1)[1])
    return "-".join([*parts, row.perturbation_id.rsplit("-", 1)[1]])


def _failing(
    session: Session, library: Library, ev: Evaluation, transcripts: bool
) -> tuple[list[FailingItem], int]:
    """The first failed and partial items in matrix order, and how many there are in all."""
    where = (col(EvaluationItem.evaluation_id) == ev.id, col(EvaluationItem.verdict).in_(FAILING))
    total = session.exec(select(func.count()).select_from(EvaluationItem).where(*where)).one()
    rows = list(
        session.exec(
            select(EvaluationItem).where(*where).order_by(col(EvaluationItem.idx)).limit(MAX_FAILING)
        )
    )
    facets = {f.key: f for f in build_facets((_stored(r) for r in rows), library)}
    out = []
    for r in rows:
        f = facets.get(r.key)
        scenario = library.scenarios.get(r.scenario_id)
        out.append(
            FailingItem(
                code=_code(r),
                scenario=r.scenario_id,
                title=scenario.title if scenario else r.scenario_id,
                condition=_name(library.conditions, f.condition) if f else "",
                country=_name(library.countries, f.country) if f and f.country else "",
                crisis_category=(f.crisis_category if f else "").replace("_", " "),
                verdict=r.verdict or "",
                reasons=list(r.reasons or []),
                **(_transcript(r) if transcripts else {"system": None, "turns": []}),
            )
        )
    return out, int(total)


def _transcript(row: EvaluationItem) -> dict[str, Any]:
    """Splits the messages into the system prompt and the turns, adding the reply if it is not stored."""
    messages = list(row.messages or [])
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), None)
    turns = [m for m in messages if m.get("role") != "system"]
    if row.reply is not None and (not turns or turns[-1].get("role") != "assistant"):
        turns.append({"role": "assistant", "content": row.reply})
    return {"system": system, "turns": turns}


def _name(table: dict[str, Any], ident: str | None) -> str:
    item = table.get(ident or "")
    return str(getattr(item, "name", ident or ""))


def _crisis_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
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


def report_view(
    *, session: Session, library: Library, evaluation_id: str, team_id: str | None
) -> ReportView | None:
    """A public evaluation for anyone, a private one only for its team; None means the page is a 404.
    Transcripts show to the owning team, or publicly when the owner shared them."""
    ev = ev_store.get_evaluation(session=session, team_id=None, evaluation_id=evaluation_id)
    owner = ev is not None and team_id == ev.team_id
    if ev is None or not (owner or ev.visibility == "public"):
        return None
    report = stored_report(session=session, evaluation=ev, library=library)
    gaps = (report.get("persona_robustness") or {}).get("by_condition") or {}
    conditions = [
        Bar(
            _name(library.conditions, c),
            Rate.of_group(block),
            note=_gap_note(gaps.get(c)),
            highlight=bool(library.conditions.get(c) and library.conditions[c].baseline),
        )
        for c, block in (report.get("by_condition") or {}).items()
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
            )
            for p, b in (report.get("by_pillar") or {}).items()
        ],
        conditions=conditions,
        countries=_country_rows(report, library),
        crisis=_crisis_rows(report),
        failing=failing,
        failing_total=total,
        transcripts=transcripts,
        headline=Rate.of(report.get("headline"), "score"),
        regressions=schedule_store.regressions_of(session=session, evaluation_id=ev.id) if owner else [],
    )
