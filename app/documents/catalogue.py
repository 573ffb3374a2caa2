"""GET /v1/benchmark: what the benchmark holds, without a single message of it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.documents.figures import Document


class CountryStats(Document):
    count: int
    with_resources: list[str]
    with_user_contexts: list[str]


class LongMessages(Document):
    count: int
    share: float | None
    words: tuple[int, int]


class Stats(Document):
    benchmark_version: str
    pillars: int
    behaviors: int
    scenarios: int
    perturbations: int
    conditions: int
    user_contexts: int
    personas: int
    countries: CountryStats
    multi_turn_scripts: int
    conversation_scripts: int
    false_positive_scenarios: int
    items_full: int
    items_quick: int
    by_pillar: dict[str, int]
    by_crisis_category: dict[str, int]
    by_language_style: dict[str, int]
    messages_by_category: dict[str, int]
    long_messages: LongMessages
    ladder_levels: int
    incoherent_pairs: int
    counterfactual_pairs: dict[str, int]


class BehaviorEntry(Document):
    id: str
    name: str
    summary: str
    weight: int
    scenarios: list[str]


class PillarEntry(Document):
    id: str
    name: str
    summary: str
    behaviors: list[BehaviorEntry]


class ScenarioEntry(Document):
    id: str
    title: str
    summary: str
    output: Literal["tags_json", "text"]
    false_positive: bool
    features: list[str]
    perturbations: int
    conditions: dict[str, str] = Field(description="The scenario's name for a condition → its id.")
    user_contexts: dict[str, str]


class ConditionEntry(Document):
    id: str
    name: str
    kind: str
    difficulty: int


class Catalogue(Document):
    version: str
    stats: Stats
    pillars: list[PillarEntry]
    scenarios: list[ScenarioEntry]
    conditions: list[ConditionEntry]
    countries: list[str]
    suites: dict[str, str] = Field(description="Suite name → what it runs.")
