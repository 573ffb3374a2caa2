"""A Last-Event-ID we did not issue starts the stream afresh."""

from __future__ import annotations

import pytest

from app.services.events import parse_last_event_id


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("7", 7), (" 12 ", 12), ("0", 0), (None, None), ("", None), ("-1", None), ("3.0", None), ("x", None)]
    + [("\u00b2", None), ("1\u00b2", None)],  # a Latin-1 superscript two: a digit to isdigit, not to int
)
def test_a_last_event_id_we_did_not_issue_starts_the_stream_afresh(
    raw: str | None, expected: int | None
) -> None:
    assert parse_last_event_id(raw) == expected
