"""Deterministic checks: one module per observable thing a reply does, and the registry that names them.

The registry's names are handed on here because the rest of the service (the library's validation, the runner,
scoring, the CLI) asks for checks by name as `app.grading.checks.CHECKS`; the detectors are imported from their
own modules.
"""

from app.grading.checks.registry import ALARM_CHECKS, CHECKS, HARM_CHECKS

__all__ = ["ALARM_CHECKS", "CHECKS", "HARM_CHECKS"]
