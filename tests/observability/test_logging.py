"""Logs go to stderr, never into the stdout a script reads a command's answer from."""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator

import pytest
import structlog
from structlog.testing import capture_logs

from app.observability.logging import configure_logging, hide_share_tokens


@pytest.fixture(autouse=True)
def _restore_test_logging() -> Iterator[None]:
    structlog.reset_defaults()  # the first configuration in a process wins; these tests make their own
    yield
    structlog.reset_defaults()
    configure_logging("info", file=sys.__stderr__)  # as tests/conftest.py set it for the session


def test_a_log_line_goes_to_the_current_stderr_as_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    configure_logging("info")
    later = io.StringIO()
    monkeypatch.setattr(
        sys, "stderr", later
    )  # redirected after configuration, as a test's capture or a daemon does
    print("ev_123")  # a command's answer
    structlog.get_logger().warning("item failed", key="k1")
    assert capsys.readouterr().out == "ev_123\n"
    line = json.loads(later.getvalue().strip().splitlines()[-1])
    assert line["event"] == "item failed" and line["key"] == "k1" and line["level"] == "warning"


def test_the_level_filters_quieter_lines(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("error")
    structlog.get_logger().warning("not shown")
    assert capsys.readouterr().err == ""


def test_the_first_configuration_in_a_process_wins(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("error")
    configure_logging("info")  # a worker started later in the same process
    structlog.get_logger().warning("not shown")
    assert capsys.readouterr().err == ""


def test_a_logger_used_before_a_capture_is_still_captured() -> None:
    configure_logging("info")
    early = structlog.get_logger("early")
    early.info("first use")
    with capture_logs() as logs:
        early.warning("seen by the capture")
    assert [entry["event"] for entry in logs] == ["seen by the capture"]


def test_the_access_log_keeps_no_share_token(caplog: pytest.LogCaptureFixture) -> None:
    hide_share_tokens("uvicorn.access")
    access = logging.getLogger("uvicorn.access")
    with caplog.at_level(logging.INFO, logger="uvicorn.access"):
        # uvicorn's own format and arguments: client, method, path, HTTP version, status
        access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5", "GET", "/shared/s3cr3t-token", "1.1", 200)
        access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5", "GET", "/evaluations/ev_1", "1.1", 200)
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        '127.0.0.1:5 - "GET /shared/… HTTP/1.1" 200',
        '127.0.0.1:5 - "GET /evaluations/ev_1 HTTP/1.1" 200',
    ]
