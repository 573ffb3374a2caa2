"""Credentials echoed back by a remote end are masked before they reach an error or a log."""

from app.security.redact import MASK, redact


def test_every_occurrence_of_every_secret_is_masked() -> None:
    text = 'HTTP 401: {"error": "bad key Bearer sk-abc123xyz, org tok-987654 (sk-abc123xyz)"}'
    out = redact(text, ["sk-abc123xyz", "tok-987654", None])
    assert "sk-abc123xyz" not in out and "tok-987654" not in out
    assert out.count(MASK) == 3 and out.startswith("HTTP 401")


def test_a_secret_containing_another_is_masked_whole() -> None:
    assert redact("key=abcdef123456", ["abcdef", "abcdef123456"]) == f"key={MASK}"


def test_short_or_empty_values_do_not_mask_ordinary_text() -> None:
    assert redact("HTTP 401 from the target", ["", "4", "the"]) == "HTTP 401 from the target"
