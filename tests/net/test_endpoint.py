"""Target URLs are refused at registration in every notation of an internal address; slow DNS cannot stall."""

from __future__ import annotations

import asyncio
import socket
import threading

import anyio.to_thread
import pytest
from fastapi.testclient import TestClient

from app.net.endpoint import check_endpoint_url, check_endpoint_url_async
from app.net.ssrf import Allowlist, UnsafeURLError
from tests.security.conftest import TeamKeys, make_team

REFUSED = [
    # schemes and credentials
    "ftp://example.com/v1",
    "file:///etc/passwd",
    "gopher://example.com/",
    "javascript:alert(1)",
    "example.com/v1",
    "https://user:pass@example.com/v1",
    "https://token@example.com/v1",
    # loopback in every notation
    "http://127.0.0.1/v1",
    "http://127.1/v1",
    "http://2130706433/v1",
    "http://0x7f000001/v1",
    "http://0177.0.0.1/v1",
    "http://0x7f.0.0.1/v1",
    "http://127.000.000.001/v1",
    "http://[::1]/v1",
    "http://[::ffff:127.0.0.1]/v1",
    "http://[::ffff:7f00:1]/v1",
    "http://[0:0:0:0:0:ffff:127.0.0.1]/v1",
    "http://localhost/v1",
    "http://LOCALHOST./v1",
    "http://api.localhost/v1",
    "http://0/v1",
    "http://0.0.0.0/v1",
    "http://[::]/v1",
    # private, shared, link-local, metadata
    "http://10.0.0.1/v1",
    "http://10.1/v1",
    "http://172.16.5.4/v1",
    "http://192.168.1.1/v1",
    "http://0xc0a80101/v1",
    "http://3232235777/v1",
    "http://100.64.0.1/v1",
    "http://[fd00::1]/v1",
    "http://[fe80::1]/v1",
    "http://[fe80::1%25eth0]/v1",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/",
    "http://0xa9fea9fe/",
    "http://2852039166/",
    "http://0251.0376.0251.0376/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://100.100.100.200/",
    "http://[fd00:ec2::254]/",
    # multicast, reserved, broadcast, documentation, transition forms
    "http://224.0.0.1/v1",
    "http://[ff02::1]/v1",
    "http://240.0.0.1/v1",
    "http://255.255.255.255/v1",
    "http://192.0.2.1/v1",
    "http://198.18.0.1/v1",
    "http://[2001:db8::1]/v1",
    "http://[64:ff9b::127.0.0.1]/v1",
    "http://[2002:7f00:1::]/v1",
    "http://[::127.0.0.1]/v1",
    # malformed hosts a lenient parser would read differently
    "http://127.0.0.1\\@example.com/v1",
    "http://exa mple.com/v1",
    "http://256.256.256.256/v1",
    "http:///v1",
]


def test_at_least_thirty_url_forms_are_refused_at_registration(strict_client: TestClient) -> None:
    client, team_a = strict_client, make_team(strict_client, "a")
    refused = 0
    for url in REFUSED:
        answer = client.post(
            "/v1/targets", headers=team_a.member, json={"name": "x", "base_url": url, "model": "m"}
        )
        assert answer.status_code == 422, f"{url} was accepted: {answer.text}"
        body = answer.json()
        assert body["field"] == "base_url" and answer.headers["content-type"] == "application/problem+json"
        assert "pass@" not in body["detail"] and "token@" not in body["detail"]  # credentials never echoed
        refused += 1
    assert client.get("/v1/targets", headers=team_a.member).json() == []
    print(f"\nSSRF: {refused} URL forms refused at registration")
    assert refused >= 30


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:9100/v1", "http://localhost:9100/v1", "http://[::1]:9100/v1"]
)
def test_the_allowlist_admits_loopback_for_self_hosted_models(
    client: TestClient, team_a: TeamKeys, url: str
) -> None:
    body = {"name": "local", "base_url": url, "model": "m"}
    answer = client.post("/v1/targets", headers=team_a.member, json=body)
    assert answer.status_code == 201, answer.text


def test_metadata_stays_refused_even_inside_an_allowed_range() -> None:
    with pytest.raises(UnsafeURLError):
        check_endpoint_url("http://169.254.169.254/", Allowlist.parse("169.254.0.0/16"), dns_timeout_s=1)


def test_a_name_that_resolves_to_an_internal_address_is_refused() -> None:
    host = socket.gethostname()
    addresses = {info[4][0] for info in socket.getaddrinfo(host, 80)}
    if not any(a.startswith(("127.", "10.", "192.168.", "172.")) or a == "::1" for a in addresses):
        pytest.skip(f"{host} resolves to {addresses}, none internal")
    with pytest.raises(UnsafeURLError, match="not in the allowlist"):
        check_endpoint_url(f"http://{host}:8000/v1", Allowlist.parse(""), dns_timeout_s=5)


def test_a_resolver_answering_with_a_private_address_is_refused() -> None:
    async def rebinding(host: str, port: int, allowlist: Allowlist) -> list[str]:
        raise UnsafeURLError(f"host {host!r} (= 10.0.0.7)", "private (not in the allowlist)")

    with pytest.raises(UnsafeURLError, match="private"):
        check_endpoint_url("https://models.example.com/v1", Allowlist(), dns_timeout_s=1, resolve=rebinding)


def test_slow_dns_does_not_hold_registration_past_the_timeout() -> None:
    asked, answer = threading.Event(), threading.Event()

    async def slow(host: str, port: int, allowlist: Allowlist) -> list[str]:
        asked.set()
        await asyncio.to_thread(answer.wait, 60)  # DNS answers only once the test lets it
        return ["203.0.114.9"]

    try:
        # Accepted while the answer is still outstanding: the call-time resolver checks what it connects to.
        check_endpoint_url("https://models.example.com/v1", Allowlist(), dns_timeout_s=0.3, resolve=slow)
        assert asked.is_set() and not answer.is_set()
    finally:
        answer.set()


async def test_a_service_thread_resolves_on_the_loop_which_keeps_serving() -> None:
    """A service checking a URL from a worker thread borrows the API loop's resolver; the loop answers meanwhile."""
    loop_thread = threading.get_ident()
    asked, answer = asyncio.Event(), threading.Event()
    resolved_on: list[int] = []

    async def slow(host: str, port: int, allowlist: Allowlist) -> list[str]:
        resolved_on.append(threading.get_ident())
        asked.set()
        await asyncio.to_thread(answer.wait, 60)
        return ["203.0.114.9"]

    def service() -> None:
        check_endpoint_url("https://models.example.com/v1", Allowlist(), dns_timeout_s=0.5, resolve=slow)

    try:
        checking = asyncio.ensure_future(anyio.to_thread.run_sync(service))
        await asked.wait()  # the loop runs other tasks while the lookup is outstanding
        await checking  # accepted at the timeout, the answer still outstanding
        assert resolved_on == [loop_thread] and not answer.is_set()
    finally:
        answer.set()


async def test_async_code_awaits_the_check_on_its_own_loop() -> None:
    async def rebinding(host: str, port: int, allowlist: Allowlist) -> list[str]:
        raise UnsafeURLError(f"host {host!r} (= 10.0.0.7)", "private (not in the allowlist)")

    with pytest.raises(UnsafeURLError, match="private"):
        await check_endpoint_url_async(
            "https://models.example.com/v1", Allowlist(), dns_timeout_s=1, resolve=rebinding
        )
    with pytest.raises(UnsafeURLError):
        await check_endpoint_url_async("http://127.0.0.1/v1", Allowlist(), dns_timeout_s=1)


async def test_the_blocking_form_is_refused_on_a_loop_thread() -> None:
    async def never(host: str, port: int, allowlist: Allowlist) -> list[str]:
        raise AssertionError("not asked")

    with pytest.raises(RuntimeError, match="check_endpoint_url_async"):
        check_endpoint_url("https://models.example.com/v1", Allowlist(), dns_timeout_s=1, resolve=never)
