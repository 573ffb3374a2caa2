"""Which items of an evaluation a results page or an export holds, as SQL conditions on the stored columns.

The service resolves the library's names (a behaviour, a country, a check's expectation) into the stored ids these
compare, so the database, not Python, skips the rows a researcher did not ask for and a page stays a page.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, false, or_
from sqlmodel import col

from app.store.models import EvaluationItem


@dataclass(frozen=True, slots=True)
class FailedCheck:
    """Items where one check's outcome differs from what their scenario expects of it.

    A check's stored outcome is what the reply did (True: it escalated, it gave method detail); whether that is a
    failure depends on the scenario and on whether the message is a crisis, so the perturbations are split by
    what they expect."""

    name: str
    expect_true: frozenset[str]  # stored perturbation ids where the check should hold
    expect_false: frozenset[str]  # and where it should not


@dataclass(frozen=True, slots=True)
class ItemFilter:
    """None (or empty) everywhere: every item. Each set given narrows to items whose column is in it."""

    verdict: str | None = None
    scenario_ids: frozenset[str] | None = None
    user_context_ids: frozenset[str] | None = None
    failed_check: FailedCheck | None = None
    condition_ids: frozenset[str] | None = None
    perturbation_ids: frozenset[str] | None = None

    def conditions(self) -> list[ColumnElement[bool]]:
        """The WHERE terms, ANDed by the caller beside the evaluation id and the cursor."""
        terms: list[ColumnElement[bool]] = []
        if self.verdict is not None:
            terms.append(col(EvaluationItem.verdict) == self.verdict)
        if self.scenario_ids is not None:
            terms.append(_within(col(EvaluationItem.scenario_id), self.scenario_ids))
        if self.user_context_ids is not None:
            terms.append(_within(col(EvaluationItem.user_context_id), self.user_context_ids))
        if self.condition_ids is not None:
            terms.append(_within(col(EvaluationItem.condition_id), self.condition_ids))
        if self.perturbation_ids is not None:
            terms.append(_within(col(EvaluationItem.perturbation_id), self.perturbation_ids))
        if self.failed_check is not None:
            terms.append(_failed(self.failed_check))
        return terms


def _within(column: ColumnElement[str | None], values: frozenset[str]) -> ColumnElement[bool]:
    # sorted: the same filter renders the same SQL (statement caches, readable logs); empty: no row, not an error
    return column.in_(sorted(values)) if values else false()


def _failed(check: FailedCheck) -> ColumnElement[bool]:
    outcome = col(EvaluationItem.checks)[check.name].as_boolean()
    perturbation = col(EvaluationItem.perturbation_id)
    return or_(
        and_(_within(perturbation, check.expect_true), outcome.is_(False)),
        and_(_within(perturbation, check.expect_false), outcome.is_(True)),
    )
