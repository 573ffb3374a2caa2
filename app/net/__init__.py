"""Outbound networking: every check on a user-given URL (SSRF guard, registration DNS check, the field-named
refusal) and the client used to call users' model endpoints."""

from app.net.client import CheckedResolver, ResponseTooLargeError, make_client, read_limited
from app.net.ssrf import Allowlist, UnsafeURLError, check_url, resolve_checked

__all__ = [
    "Allowlist",
    "CheckedResolver",
    "ResponseTooLargeError",
    "UnsafeURLError",
    "check_url",
    "make_client",
    "read_limited",
    "resolve_checked",
]
