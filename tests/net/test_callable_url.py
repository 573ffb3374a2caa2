"""A user-given URL (target, judge, simulator, webhook) we may not call is refused as a 422 naming the field and
the reason, never echoing the URL, which may carry a credential."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.errors import Invalid
from app.main import create_app
from app.net.callable_url import require_callable_url

SECRET = "s3cr3t-token"


def refusal(url: str, field: str, settings: Settings) -> Invalid:
    with pytest.raises(Invalid) as refused:
        require_callable_url(url, field, settings)
    return refused.value


def test_an_allowlisted_loopback_target_may_be_called(settings: Settings) -> None:
    require_callable_url("http://127.0.0.1:8080/v1", "base_url", settings)
    require_callable_url("http://localhost:8080/v1", "base_url", settings)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        (f"http://user:{SECRET}@127.0.0.1/v1", "credentials"),
        (f"http://169.254.169.254/latest?token={SECRET}", "169.254.169.254"),
        (f"ftp://127.0.0.1/{SECRET}", "scheme"),
        (f"http://10.0.0.5/{SECRET}", "10.0.0.5"),
    ],
)
def test_a_refused_url_names_the_field_and_the_reason_and_never_the_secret(
    settings: Settings, url: str, reason: str
) -> None:
    refused = refusal(url, "judge.base_url", settings)
    assert refused.field == "judge.base_url" and refused.detail.startswith("judge.base_url: refused: ")
    assert reason in refused.detail and SECRET not in refused.detail


def test_the_allowlist_is_the_operator_s_to_widen(settings: Settings) -> None:
    refusal("http://10.0.0.5/v1", "url", settings)
    require_callable_url(
        "http://10.0.0.5/v1", "url", settings.model_copy(update={"target_allowlist": "10.0.0.0/8"})
    )


def test_the_api_answers_a_refused_target_url_as_a_422_on_its_field(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        key = (settings.var_dir / "admin.key").read_text().strip()
        response = client.post(
            "/v1/targets",
            json={"name": "bot", "base_url": f"http://user:{SECRET}@127.0.0.1/v1", "model": "m"},
            headers={"Authorization": f"Bearer {key}"},
        )
    assert response.status_code == 422 and response.json()["field"] == "base_url"
    assert SECRET not in response.text
