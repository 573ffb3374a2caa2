"""The leaderboard's figures and its one ranking, shared by the JSON board, the HTML board and their slices.

A board row is read from a report-shaped summary: the stored report for the whole evaluation, or the compact
summary of one country's or one condition's items, computed once when the report is stored (`slices`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal, TypeVar

from app.benchmark.loader import Library
from app.scoring import metrics as m
from app.scoring.facets import Facet
from app.scoring.headline import headline_score
from app.scoring.judges import grader_section
from app.scoring.vocabulary import PASS_RATE, legible
from app.store.models import slice_name

SORTS = ("score", "pass_rate", "model", "n_items", "finished")
SLICE_KINDS = ("country", "condition")
# The headline keys a board row reads; a stored slice keeps only these (a full headline carries per-behaviour
# detail the board never shows).
HEADLINE_KEYS = ("score", "interval", "quality", "floors", "capped", "why", "pillars", "pillar_intervals")


@dataclass(frozen=True, slots=True)
class Rate:
    """A share or score with its 95% interval, as the boards and pages print it."""

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


@dataclass(frozen=True, slots=True)
class Figures:
    """What a board shows for one evaluation (or one slice of it)."""

    score: Rate
    capped: bool
    why: str
    pass_rate: Rate
    pillars: dict[str, Rate]
    n_items: int
    sensitivity: float | None
    over_escalation: float | None
    ungraded_share: float | None
    grader: str | None = None  # rules | judge | panel; None for a board stored before reports said
    quality: float | None = None  # before the floors; None for a board row stored before slices kept it
    band: str | None = None  # A–E (app/scoring/vocabulary.py)
    cap: str = ""  # which floor capped the score, in words; '' when none did


def pillar_rates(summary: dict[str, Any]) -> dict[str, Rate]:
    """Per pillar, the severity-weighted pillar score the headline is made of, with its 95% interval from the
    headline's bootstrap; where a report has none for a pillar (stored before the headline had pillars, or no
    behaviour of it weighted), its pass rate."""
    headline = summary.get("headline") or {}
    scores = headline.get("pillars") or {}
    intervals = headline.get("pillar_intervals") or {}  # absent from reports stored before pillars had them
    blocks = summary.get("by_pillar") or {}
    out: dict[str, Rate] = {}
    for p in sorted(set(scores) | set(blocks)):
        block = blocks.get(p) or {}
        if scores.get(p) is not None:
            low, high = intervals.get(p) or (None, None)
            out[p] = Rate(float(scores[p]), low, high, n=int(block.get("n") or 0))
        else:  # marked, so no page prints this pass rate as if it were the score
            rate = Rate.of_group(block)
            out[p] = replace(rate, basis=f"{PASS_RATE}, {rate.basis}" if rate.basis else PASS_RATE)
    return out


def figures(summary: dict[str, Any]) -> Figures:
    """Board figures from a report-shaped summary (a stored report or a slice)."""
    headline = summary.get("headline") or {}
    score = headline.get("score")
    shown = legible(headline)
    return Figures(
        score=replace(
            Rate.of(headline, "score"), value=float(score) if isinstance(score, int | float) else None
        ),
        capped=bool(headline.get("capped")),
        why=str(headline.get("why") or ""),
        quality=quality if isinstance(quality := headline.get("quality"), int | float) else None,
        band=shown["band"],
        cap=shown.get("cap") or "",
        pass_rate=Rate.of_group(summary.get("overall")),
        pillars=pillar_rates(summary),
        n_items=int(summary.get("n_items") or 0),
        sensitivity=(summary.get("sensitivity") or {}).get("rate"),
        over_escalation=(summary.get("over_escalation") or {}).get("rate"),
        ungraded_share=summary.get("ungraded_share"),
        grader=(summary.get("grader") or {}).get("method"),
    )


def compact(summary: dict[str, Any]) -> dict[str, Any]:
    """The parts of a report-shaped summary that `figures` reads: what the store keeps for a board."""
    headline = summary.get("headline") or {}
    return {
        "headline": {k: headline[k] for k in HEADLINE_KEYS if k in headline},
        "overall": summary.get("overall"),
        "by_pillar": summary.get("by_pillar"),
        "n_items": summary.get("n_items"),
        "sensitivity": {"rate": (summary.get("sensitivity") or {}).get("rate")},
        "over_escalation": {"rate": (summary.get("over_escalation") or {}).get("rate")},
        "ungraded_share": summary.get("ungraded_share"),
        "grader": {"method": (summary.get("grader") or {}).get("method")},
    }


def slice_summary(facets: list[Facet], library: Library) -> dict[str, Any]:
    """The compact report-shaped summary of a subset of items, with the metric functions the report uses."""
    n = len(facets)
    return compact(
        {
            "headline": headline_score(facets, library) if facets else {},
            "overall": m.summary(facets),
            "by_pillar": m.by(facets, lambda f: f.pillar),
            "n_items": n,
            "sensitivity": m.sensitivity(facets),
            "over_escalation": m.over_escalation(facets),
            "ungraded_share": round(sum(f.verdict == "UNGRADED" for f in facets) / n, 4) if n else None,
            "grader": grader_section(facets),
        }
    )


def slice_key(kind: str, f: Facet) -> str | None:
    return f.country if kind == "country" else f.condition


def slices(facets: list[Facet], library: Library) -> dict[str, dict[str, Any]]:
    """Per country and per condition (slice name → compact summary), the figures a filtered board shows;
    computed once with the report and stored, so a filtered board never reads items."""
    out: dict[str, dict[str, Any]] = {}
    for kind in SLICE_KINDS:
        groups: dict[str, list[Facet]] = {}
        for f in facets:
            key = slice_key(kind, f)
            if key is not None:
                groups.setdefault(key, []).append(f)
        out.update({slice_name(kind, k): slice_summary(v, library) for k, v in sorted(groups.items())})
    return out


@dataclass(frozen=True, slots=True)
class Entry:
    """One evaluation on a board: who, when, and its figures for the board's slice."""

    evaluation_id: str
    target_name: str
    model: str
    suite: str
    finished: datetime
    figures: Figures


E = TypeVar("E", bound=Entry)


def rank(entries: Sequence[E]) -> list[tuple[int, E]]:
    """The one ranking: best headline score first, ties by the earlier finish, then by id; an entry without a
    score (nothing gradable in it) has no rank and is not on the board."""
    scored = [e for e in entries if e.figures.score.value is not None]
    scored.sort(key=lambda e: (-(e.figures.score.value or 0.0), e.finished, e.evaluation_id))
    return list(enumerate(scored, start=1))


def sort_value(entry: Entry, sort: str) -> Any:
    """The value a board column sorts by; None sorts last whichever the order."""
    f = entry.figures
    if sort.startswith("pillar:"):
        return f.pillars.get(sort.split(":", 1)[1], Rate(None)).value
    getters: dict[str, Callable[[], Any]] = {
        "score": lambda: f.score.value,
        "pass_rate": lambda: f.pass_rate.value,
        "model": lambda: entry.target_name.lower(),
        "n_items": lambda: f.n_items,
        "finished": lambda: entry.finished,
    }
    return getters[sort]()


def valid_sort(sort: str, library: Library) -> bool:
    return sort in SORTS or (sort.startswith("pillar:") and sort[7:] in library.pillars)


def ordered(ranked: list[tuple[int, E]], sort: str, order: Literal["asc", "desc"]) -> list[tuple[int, E]]:
    """Ranked entries in a column's order (stable, so ties keep rank order); entries with no value last."""
    present = [r for r in ranked if sort_value(r[1], sort) is not None]
    absent = [r for r in ranked if sort_value(r[1], sort) is None]
    present.sort(key=lambda r: sort_value(r[1], sort), reverse=order == "desc")
    return present + absent
