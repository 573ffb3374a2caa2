"""The grader the runner calls: deterministic checks always, a panel of 1–3 judges when one is configured."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import httpx

from app.benchmark.countries import CountryResources
from app.benchmark.items import ResolvedItem
from app.grading.grades.verdict import Grade, GradingInput, apply_judge, grade_replies
from app.grading.judges.judge import JudgeCase, JudgeConfig, Panel
from app.grading.reading.reply import parse_reply
from app.grading.transcript import TRANSCRIPT_CRITERIA, Transcript
from app.net.client import make_client
from app.net.ssrf import Allowlist
from app.targets.retry import RetryPolicy

if TYPE_CHECKING:
    from app.config import Settings
    from app.security.secrets import SecretBox


def _judge(
    settings: Settings,
    *,
    base_url: str,
    model: str,
    api_key: str | None,
    samples: int | None,
    seed: int | None,
) -> JudgeConfig:
    """One judge's config; what the evaluation or default leaves open comes from the HELMBENCH_JUDGE_* settings."""
    return JudgeConfig(
        base_url=base_url.rstrip("/"),
        model=model,
        api_key=api_key,
        samples=int(samples or settings.judge_samples),
        seed=int(seed or settings.judge_seed),
        timeout_s=settings.request_timeout_s,
        parse_retries=settings.judge_parse_retries,
    )


def judge_configs_from_settings(settings: Settings) -> list[JudgeConfig]:
    """The service-wide default panel: HELMBENCH_JUDGES, else the one HELMBENCH_JUDGE_* judge, else none."""
    if settings.judges:
        return [
            _judge(
                settings, base_url=j.base_url, model=j.model, api_key=j.api_key, samples=j.samples, seed=None
            )
            for j in settings.judges
        ]
    if not settings.judge_base_url or not settings.judge_model:
        return []
    return [
        _judge(
            settings,
            base_url=settings.judge_base_url,
            model=settings.judge_model,
            api_key=settings.judge_api_key,
            samples=settings.judge_samples,
            seed=None,
        )
    ]


def _stored_panel(
    stored: dict[str, Any], secret: str | None, secrets: SecretBox
) -> list[tuple[dict[str, Any], str | None]]:
    """(clear config, key) per judge. A panel seals its keys together as one JSON list; an evaluation stored
    with a single judge holds one judge's config and its key alone."""
    if "judges" not in stored:
        return [(stored, secrets.decrypt(secret) if secret else None)]
    judges: list[dict[str, Any]] = stored["judges"]
    keys = secrets.decrypt_json(secret) if secret else []
    keys = list(keys) if isinstance(keys, list) else []
    return list(zip(judges, keys + [None] * (len(judges) - len(keys)), strict=True))


def judge_configs_for_evaluation(
    settings: Settings, secrets: SecretBox, evaluation: Any
) -> list[JudgeConfig]:
    """The evaluation's own panel if it asked for one (keys decrypted only in memory), else the default."""
    stored = getattr(evaluation, "judge_config", None)
    if not stored:
        return judge_configs_from_settings(settings)
    secret = getattr(evaluation, "judge_api_key_secret", None)
    return [
        _judge(
            settings,
            base_url=config["base_url"],
            model=config["model"],
            api_key=key,
            samples=config.get("samples"),
            seed=config.get("seed"),
        )
        for config, key in _stored_panel(stored, secret, secrets)
    ]


def _item_input(item: ResolvedItem, replies: Sequence[str]) -> GradingInput:
    p = item.perturbation
    return GradingInput(
        replies=replies,
        criteria=item.scenario.criteria,
        flag_expected=p.flag_expected,
        flag_optional=p.flag_optional,
        expected_tags=p.expected_tags,
        country=item.country,
        category=p.crisis_category,
        condition_kind=item.condition.kind,
        user_turns=p.user_turns,
        crisis_from_turn=p.crisis_from_turn,
    )


def _visible(reply: str, expects_tags: bool) -> str:
    return parse_reply(reply, expects_tags=expects_tags).text


def _item_case(item: ResolvedItem, replies: Sequence[str], grade: Grade) -> JudgeCase:
    scenario, p = item.scenario, item.perturbation
    tags = scenario.criteria.routing is not None
    transcript: list[dict[str, str]] = []
    for turn, reply in zip(p.user_turns, replies, strict=False):
        transcript += [
            {"role": "user", "content": turn},
            {"role": "assistant", "content": _visible(reply, tags)},
        ]
    transcript = transcript[:-1]  # the last assistant message is the reply being graded
    context = [
        f"- Test: {scenario.id} {scenario.title}. {' '.join(scenario.summary.split())}",
        f"- Deployment: {item.condition.name} ({item.condition.kind}).",
    ]
    if item.user_context is not None:
        u = item.user_context
        context.append(
            f"- User: {u.age}, lives in {u.city}, {u.country}; groups: {', '.join(u.groups) or 'none'}."
        )
    applicable = {
        c.check: c.expect
        for c in scenario.criteria.checks
        if c.when == "always" or (c.when == "flag_expected") == p.flag_expected
    }
    return JudgeCase(
        transcript=transcript,
        reply=_visible(replies[-1], tags),
        crisis_category=p.crisis_category,
        crisis_expected=p.flag_expected,
        rubrics=scenario.criteria.rubrics,
        checks=grade.checks,
        expected=applicable,
        context=context,
    )


def _transcript_case(t: Transcript, grade: Grade) -> JudgeCase:
    context = [f"- User lives in: {t.country or 'unknown'}.", "- A free transcript from a product's logs."]
    expected = {
        c.check: c.expect
        for c in TRANSCRIPT_CRITERIA.checks
        if c.when == "always" or (c.when == "flag_expected") == t.crisis_expected
    }
    return JudgeCase(
        transcript=[m.model_dump() for m in t.messages],
        reply=t.reply,
        crisis_category=t.category,
        crisis_expected=t.crisis_expected,
        rubrics=TRANSCRIPT_CRITERIA.rubrics,
        checks=grade.checks,
        expected=expected,
        context=context,
    )


class Grader:
    """One per run; holds the countries and maybe a judge panel, so the runner passes only item and replies."""

    def __init__(
        self,
        countries: Mapping[str, CountryResources],
        judge: Panel | None = None,
        client: httpx.AsyncClient | None = None,
    ):
        self._countries = countries
        self.judge = judge
        self._client = client

    @classmethod
    def with_judges(
        cls,
        countries: Mapping[str, CountryResources],
        configs: Sequence[JudgeConfig],
        *,
        max_reply_bytes: int = 2_000_000,
        policy: RetryPolicy | None = None,
        allowlist: Allowlist | None = None,
    ) -> Grader:
        """A grader that owns its panel's HTTP client (close it with `aclose`); no configs, no judge.

        The client is the targets' guarded one: a judge URL gets the same SSRF checks at call time.
        """
        if not configs:
            return cls(countries)
        client = make_client(
            max_connections=max(4, sum(c.samples for c in configs) * 4),
            timeout=max(c.timeout_s for c in configs),
            allowlist=allowlist or Allowlist.parse(""),
            max_response_bytes=max_reply_bytes,
        )
        panel = Panel(client, configs, policy=policy, max_reply_bytes=max_reply_bytes)
        return cls(countries, panel, client)

    @classmethod
    def for_evaluation(
        cls,
        settings: Settings,
        secrets: SecretBox,
        countries: Mapping[str, CountryResources],
        evaluation: Any,
    ) -> Grader:
        """The grader an evaluation asked for: its own panel, else the default panel, else rules only."""
        policy = RetryPolicy(max_retries=settings.max_retries, budget_s=settings.retry_budget_s)
        return cls.with_judges(
            countries,
            judge_configs_for_evaluation(settings, secrets, evaluation),
            max_reply_bytes=settings.max_reply_bytes,
            policy=policy,
            allowlist=Allowlist.parse(settings.target_allowlist),
        )

    async def grade(self, item: ResolvedItem, replies: list[str]) -> Grade:
        """`replies`: the target's replies in order (one per user turn); checks read them all."""
        grade = grade_replies(_item_input(item, replies), self._countries)
        if self.judge is None:
            return apply_judge(grade, item.scenario.criteria, None)
        judged = await self.judge.judge(_item_case(item, replies, grade))
        grade = apply_judge(grade, item.scenario.criteria, judged)
        grade.panel_scores = judged.panel_scores
        return grade

    async def grade_transcript(self, transcript: Transcript) -> Grade:
        """Grades a free transcript against the common criteria, reporting every check."""
        grading = GradingInput(
            replies=[transcript.reply],
            criteria=TRANSCRIPT_CRITERIA,
            flag_expected=transcript.crisis_expected,
            country=transcript.country,
            category=transcript.category,
            user_turns=[m.content for m in transcript.messages if m.role == "user"],
            report_all_checks=True,
        )
        grade = grade_replies(grading, self._countries)
        judged = await self.judge.judge(_transcript_case(transcript, grade)) if self.judge else None
        grade = apply_judge(grade, TRANSCRIPT_CRITERIA, judged)
        grade.panel_scores = judged.panel_scores if judged is not None else None
        return grade

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    async def __aenter__(self) -> Grader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
