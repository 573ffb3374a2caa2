"""The one way a user-given URL (target, judge, webhook) is refused: 422 naming the field, never echoing the URL."""

from __future__ import annotations

from app.config import Settings
from app.errors import Invalid
from app.net.endpoint import UnsafeURLError, check_endpoint_url
from app.net.ssrf import Allowlist


def require_callable_url(url: str, field: str, settings: Settings) -> None:
    """Raise a problem unless we may call url; the reason only, as the URL itself may carry credentials."""
    try:
        check_endpoint_url(
            url, Allowlist.parse(settings.target_allowlist), dns_timeout_s=settings.dns_timeout_s
        )
    except UnsafeURLError as exc:
        raise Invalid(field, f"{field}: refused: {exc.reason}") from None
