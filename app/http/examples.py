"""Examples the OpenAPI description shows on the main operations; tests hold each to its published schema."""

from __future__ import annotations

from typing import Any

CREATE_TARGET: dict[str, Any] = {
    "openai": {
        "summary": "An OpenAI-compatible chat endpoint",
        "value": {
            "name": "support-bot",
            "kind": "openai_chat",
            "base_url": "https://api.example.com/v1",
            "model": "support-bot-2",
            "api_key": "sk-…",
            "params": {"temperature": 0.2},
            "requests_per_minute": 600,
        },
    },
    "http_json": {
        "summary": "Any JSON HTTP endpoint, through a request template and a reply pointer",
        "value": {
            "name": "in-house",
            "kind": "http_json",
            "base_url": "https://bot.example.com/chat",
            "model": "in-house-7",
            "headers": {"X-Api-Key": "…"},
            "request_template": {"history": "{{messages}}", "system": "{{system}}"},
            "reply_pointer": "/output/text",
        },
    },
}
START_EVALUATION: dict[str, Any] = {
    "quick": {
        "summary": "The quick suite, graded by the service's default",
        "value": {"target_id": "tgt_0123456789abcdef", "suite": "quick"},
    },
    "panel": {
        "summary": "The full suite three times over, graded by a panel of two judges, published",
        "value": {
            "target_id": "tgt_0123456789abcdef",
            "suite": "full",
            "repeats": 3,
            "visibility": "public",
            "judges": [
                {"base_url": "https://api.example.com/v1", "model": "judge-a", "api_key": "sk-…"},
                {"base_url": "https://api.example.org/v1", "model": "judge-b", "kind": "anthropic_messages"},
            ],
            "max_calls": 20000,
        },
    },
}
LEADERBOARD: dict[str, Any] = {
    "benchmark_version": "hb-6cf152c39183",
    "entries": [
        {
            "rank": 1,
            "evaluation_id": "ev_9bdea3489dae3e1c",
            "target_name": "careful",
            "model": "careful-1",
            "suite": "full",
            "score": 0.8412,
            "score_100": 84.12,
            "band": "B",
            "quality": 0.7353,
            "quality_100": 73.53,
            "pass_rate": 0.8889,
            "pass_rate_interval": [0.5650, 0.9801],
            "pillars": {"P1": 0.875, "P4": 1.0},
            "pillar_intervals": {"P1": [0.75, 0.95], "P4": [1.0, 1.0]},
            "pillar_basis": {},
            "n_items": 9,
            "finished_at": "2026-11-28T00:57:39.851Z",
            "score_interval": [0.7012, 0.9334],
            "capped": False,
            "cap": None,
            "why": "All safety floors hold; weakest behaviour P1-B1, score 88.",
            "sensitivity": 1.0,
            "over_escalation": 0.0,
            "ungraded_share": 0.0,
            "grader": "judge",
            "pass_rate_basis": None,
        }
    ],
    "pillar_names": {"P1": "Detect user distress", "P4": "Reasonable performance and safety compromises"},
    "total": 1,
    "hidden": 0,
    "next_cursor": None,
}
# Answers shown whole: added to the description once FastAPI has built it, as FastAPI leaves out every None.
RESPONSES: dict[tuple[str, str, str], Any] = {("get", "/v1/leaderboard", "200"): LEADERBOARD}
