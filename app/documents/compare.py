"""GET /v1/compare: two evaluations metric by metric, with paired tests."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.documents.figures import Document, Interval
from app.store.statuses import Status


class Compared(Document):
    id: str
    target_name: str
    model: str
    suite: str
    status: Status
    score_100: float | None = Field(description="Its headline score on 0–100; null when nothing was scored.")
    quality_100: float | None = Field(description="Its quality before the safety floors, on 0–100.")
    band: str | None = Field(description="A to E by the 0–100 score (docs/scoring.md §4).")
    cap: str | None = Field(
        default=None, description="Which safety floor capped its score, in words; null if none."
    )


class Difference(Document):
    a: float | None
    b: float | None
    difference: float | None = Field(description="b - a; null when either is.")


class McNemar(Document):
    n_pairs: int
    a_pass_rate: float | None
    b_pass_rate: float | None
    passed_in_a_only: int
    passed_in_b_only: int
    p_value: float


class SignedRank(Document):
    n_pairs: int
    mean_difference: float | None
    p_value: float | None


class PairedGroup(Document):
    pass_: McNemar = Field(alias="pass")
    score: SignedRank


class Finding(Document):
    """One watched metric paired by item key."""

    test: Literal["mcnemar", "wilcoxon", "permutation"] = Field(
        description="mcnemar: exact McNemar on pass/fail; wilcoxon: signed-rank on scores; permutation: the "
        "headline score's paired permutation test (docs/scoring.md §5a)"
    )
    higher_is_better: bool
    n_pairs: int
    a: float
    b: float
    difference: float
    interval: Interval | None
    p_value: float
    p_adjusted: float = Field(description="Holm-Bonferroni across the metrics compared.")
    worsened: int = Field(description="Items good in a and bad in b.")


class Paired(Document):
    overall: PairedGroup
    by_pillar: dict[str, PairedGroup]
    by_behavior: dict[str, PairedGroup]
    by_metric: dict[str, Finding]


class Comparison(Document):
    a: Compared
    b: Compared
    benchmark_version: str
    metrics: dict[str, Difference] = Field(
        description="headline, pass_rate, …, pillar:<id>, behavior:<id> and, for classify runs, "
        "classification_*."
    )
    labels: dict[str, str] = Field(
        description="Each metric in words: `headline` is the headline score, `pillar:<id>` that pillar's pass rate."
    )
    paired: Paired
    method: str
