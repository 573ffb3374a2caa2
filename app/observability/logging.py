"""Structured JSON logs: one line per event, with evaluation and item ids bound where they are known."""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(level: str = "info", json_lines: bool = True) -> None:
    """Call once per process (worker start, bench); structlog loggers then write JSON lines to stderr."""
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json_lines else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
