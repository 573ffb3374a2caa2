"""Structured JSON logs: one line per event, with evaluation and item ids bound where they are known."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import structlog


class _CurrentStderr:
    """Writes to whatever sys.stderr is at the moment of writing, so a logger configured once follows a later
    redirect (a test's capture, a daemon's log file) instead of holding a stream that may be closed."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(level: str = "info", json_lines: bool = True, file: TextIO | None = None) -> None:
    """Call once per process (serve, worker, bench); structlog loggers then write JSON lines to stderr.

    Unconfigured, structlog prints to stdout, where a command's own output goes (an id a script reads). `file`
    pins the stream (a test process pins the real stderr, so a server thread's lines never land in the output a
    CLI runner captures); by default each line goes to sys.stderr as it is at that moment. The first call in a
    process wins: a worker started inside a process that already logs (a test, a bench) keeps that process's
    settings."""
    if structlog.is_configured():
        return
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
        logger_factory=structlog.PrintLoggerFactory(file=file or _CurrentStderr()),  # type: ignore[arg-type]
        # Uncached: a logger made before a later configure (a test's capture_logs, a worker started in a process
        # that already logs) follows it; a log line is rare enough here that the lookup costs nothing.
        cache_logger_on_first_use=False,
    )


SHARED_PREFIX = "/shared/"


class _HideShareTokens(logging.Filter):
    """The access log names each request's path; a share link's path is its token, which opens a report, so
    the log keeps only that a share link was followed."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and str(args[2]).startswith(SHARED_PREFIX):
            record.args = (*args[:2], SHARED_PREFIX + "…", *args[3:])
        return True


def hide_share_tokens(logger_name: str = "uvicorn.access") -> None:
    """Install the filter once on the server's access log (after the server configured its logging)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, _HideShareTokens) for f in logger.filters):
        logger.addFilter(_HideShareTokens())
