"""The guarded client reaches admitted loopback servers, refuses others, follows no redirect, caps size."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import httpx
import pytest
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from app.net.client import CheckedResolver, ResponseTooLargeError, make_client, make_connector, read_limited
from app.net.ssrf import Allowlist, UnsafeURLError
from app.targets.base import TargetConfig
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy
from bench.mock_target import MockConfig, running_mock
from bench.ports import free_port

LOOPBACK = Allowlist.parse("127.0.0.0/8")


@dataclass
class Server:
    """A loopback aiohttp server and the hits each path received."""

    host: str
    port: int
    hits: Counter[str]

    def url(self, path: str, host: str | None = None) -> str:
        return f"http://{host or self.host}:{self.port}{path}"


async def _start(app: web.Application, host: str) -> tuple[web.AppRunner, int]:
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, host, 0)
    await site.start()
    return runner, int(runner.addresses[0][1])


def _app(hits: Counter[str]) -> web.Application:
    in_flight = {"now": 0}

    async def ok(request: web.Request) -> web.Response:
        hits["/ok"] += 1
        return web.json_response({"ok": True})

    async def slow(request: web.Request) -> web.Response:
        hits["/slow"] += 1
        in_flight["now"] += 1
        hits["max_in_flight"] = max(hits["max_in_flight"], in_flight["now"])
        await asyncio.sleep(0.05)
        in_flight["now"] -= 1
        return web.Response(text="done")

    async def redirect(request: web.Request) -> web.Response:
        hits["/redirect"] += 1
        raise web.HTTPFound(request.query["to"])

    async def big(request: web.Request) -> web.StreamResponse:
        hits["/big"] += 1
        size = int(request.query["n"])
        if request.query.get("chunked"):
            resp = web.StreamResponse()
            resp.enable_chunked_encoding()
            await resp.prepare(request)
            for _ in range(size // 1000):
                await resp.write(b"x" * 1000)
            await resp.write_eof()
            return resp
        return web.Response(body=b"x" * size)

    async def echo(request: web.Request) -> web.Response:
        """Sends back what arrived, and sets a cookie a browser would send back next time."""
        hits["/echo"] += 1
        body = {
            "method": request.method,
            "headers": [[k.lower(), v] for k, v in request.headers.items()],
            "body": (await request.read()).decode(),
        }
        response = web.json_response(body, headers={"x-reply": "a"})
        response.headers.add("x-reply", "b")
        response.set_cookie("session", "conversation-1")
        return response

    async def secret(request: web.Request) -> web.Response:
        hits["/secret"] += 1
        return web.Response(text="internal secret")

    app = web.Application()
    app.router.add_get("/ok", ok)
    app.router.add_get("/slow", slow)
    app.router.add_get("/redirect", redirect)
    app.router.add_get("/big", big)
    app.router.add_get("/secret", secret)
    app.router.add_post("/echo", echo)
    return app


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    hits: Counter[str] = Counter()
    runner, port = await _start(_app(hits), "127.0.0.1")
    yield Server("127.0.0.1", port, hits)
    await runner.cleanup()


@pytest.fixture
async def internal() -> AsyncIterator[Server]:
    """A second loopback server on 127.0.0.2, standing for an internal service."""
    hits: Counter[str] = Counter()
    runner, port = await _start(_app(hits), "127.0.0.2")
    yield Server("127.0.0.2", port, hits)
    await runner.cleanup()


def _client(allowlist: Allowlist, max_bytes: int = 1 << 20, connections: int = 8) -> httpx.AsyncClient:
    return make_client(
        max_connections=connections, timeout=5, allowlist=allowlist, max_response_bytes=max_bytes
    )


async def test_loopback_reachable_when_allowlisted(server: Server) -> None:
    async with _client(LOOPBACK) as client:
        response = await client.get(server.url("/ok"))
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert server.hits["/ok"] == 1


@pytest.mark.parametrize("host", ["127.0.0.1", "2130706433", "127.1", "0x7f.0.0.1", "localhost"])
async def test_loopback_refused_without_allowlist(server: Server, host: str) -> None:
    async with _client(Allowlist.parse("")) as client:
        with pytest.raises(UnsafeURLError):
            await client.get(server.url("/ok", host=host))
    assert server.hits["/ok"] == 0


async def test_host_name_admitted_by_name(server: Server) -> None:
    async with _client(Allowlist.parse("localhost")) as client:
        response = await client.get(server.url("/ok", host="localhost"))
    assert response.status_code == 200


async def test_redirect_to_internal_address_is_returned_not_followed(
    server: Server, internal: Server
) -> None:
    target = internal.url("/secret")
    async with _client(Allowlist.parse("127.0.0.1/32")) as client:
        response = await client.get(server.url("/redirect"), params={"to": target})
        assert response.status_code == 302
        assert response.headers["location"] == target
        with pytest.raises(UnsafeURLError, match="127.0.0.2"):
            await client.get(server.url("/redirect"), params={"to": target}, follow_redirects=True)
    assert internal.hits["/secret"] == 0


async def test_redirect_target_reachable_only_when_admitted(server: Server, internal: Server) -> None:
    """Shows the redirect test above could fail: with the address admitted, the target really is reached."""
    async with _client(LOOPBACK) as client:
        response = await client.get(
            server.url("/redirect"), params={"to": internal.url("/secret")}, follow_redirects=True
        )
    assert response.text == "internal secret" and internal.hits["/secret"] == 1


@pytest.mark.parametrize("chunked", ["", "1"])
async def test_too_large_reply_refused(server: Server, chunked: str) -> None:
    async with _client(LOOPBACK, max_bytes=10_000) as client:
        small = await client.get(server.url("/big"), params={"n": 5000, "chunked": chunked})
        assert len(small.content) == 5000
        with pytest.raises(ResponseTooLargeError, match="10000"):
            await client.get(server.url("/big"), params={"n": 200_000, "chunked": chunked})


@pytest.mark.parametrize("chunked", ["", "1"])
async def test_read_limited_streams_and_stops(server: Server, chunked: str) -> None:
    async with _client(LOOPBACK) as client:
        request = client.build_request("GET", server.url("/big"), params={"n": 50_000, "chunked": chunked})
        response = await client.send(request, stream=True)
        with pytest.raises(ResponseTooLargeError):
            await read_limited(response, 20_000)
        assert response.is_closed
        response = await client.send(request, stream=True)
        assert len(await read_limited(response, 50_000)) == 50_000


async def test_request_and_reply_arrive_whole(server: Server) -> None:
    """Headers (repeated ones too), body and status cross the transport both ways unchanged."""
    async with _client(LOOPBACK) as client:
        response = await client.post(
            server.url("/echo"),
            content=b'{"q": "caf\xc3\xa9"}',
            headers=[("authorization", "Bearer k1"), ("x-team", "one"), ("x-team", "two")],
        )
    sent = response.json()
    assert response.status_code == 200 and response.headers.get_list("x-reply") == ["a", "b"]
    assert sent["method"] == "POST" and sent["body"] == '{"q": "café"}'
    assert ["authorization", "Bearer k1"] in sent["headers"]
    assert [v for k, v in sent["headers"] if k == "x-team"] == ["one", "two"]


async def test_calls_carry_no_cookie_from_earlier_replies(server: Server) -> None:
    """A target's session cookie must not tie one item's conversation to the next item's call."""
    async with _client(LOOPBACK) as client:
        first = await client.post(server.url("/echo"), content=b"{}")
        second = await client.post(server.url("/echo"), content=b"{}")
    assert "session=conversation-1" in first.headers["set-cookie"]
    assert not [v for k, v in second.json()["headers"] if k == "cookie"]
    assert len(client.cookies) == 0


async def test_pool_is_sized_to_max_connections(server: Server) -> None:
    async with _client(LOOPBACK, connections=3) as client:
        replies = await asyncio.gather(*(client.get(server.url("/slow")) for _ in range(12)))
    assert all(r.status_code == 200 for r in replies)
    assert server.hits["/slow"] == 12 and server.hits["max_in_flight"] == 3


async def test_environment_proxy_is_ignored(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    async with _client(LOOPBACK) as client:
        response = await client.get(server.url("/ok"))
    assert response.status_code == 200


async def test_resolver_refuses_localhost() -> None:
    resolver = CheckedResolver(Allowlist.parse(""))
    with pytest.raises(UnsafeURLError, match="localhost"):
        await resolver.resolve("localhost", 80)
    admitted = await CheckedResolver(Allowlist.parse("127.0.0.0/8,::1")).resolve("localhost", 80)
    assert admitted and {r["hostname"] for r in admitted} == {"localhost"}


@pytest.mark.parametrize("host", ["localhost", "0x7f.1"])
async def test_connector_checks_names_even_without_url_check(server: Server, host: str) -> None:
    """A plain aiohttp session on our connector (no check_url) still refuses names resolving to loopback."""
    connector = make_connector(allowlist=Allowlist.parse(""), max_connections=4)
    async with aiohttp.ClientSession(connector=connector) as session:
        with pytest.raises(UnsafeURLError):
            await session.get(server.url("/ok", host=host))
    assert server.hits["/ok"] == 0


async def test_unsafe_scheme_refused_by_client() -> None:
    async with _client(LOOPBACK) as client:
        with pytest.raises((UnsafeURLError, httpx.UnsupportedProtocol)):
            await client.get("ftp://127.0.0.1/")


async def test_timeout_setting_bounds_a_hanging_endpoint() -> None:
    config = MockConfig(latency=0.0, rate_timeout=1.0, timeout_seconds=5)
    async with running_mock(config) as base:
        client = make_client(max_connections=2, timeout=0.3, allowlist=LOOPBACK, max_response_bytes=1 << 16)
        async with client:
            # The endpoint answers only after 5 s, and then with a 504: a timeout here is the client giving up.
            with pytest.raises(httpx.TimeoutException):
                await client.post(f"{base}/v1/chat/completions", json={"model": "m", "messages": []})


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by nobody a client trusts."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


async def test_https_target_with_an_untrusted_certificate_is_refused(tmp_path: Path) -> None:
    """Every client shares one TLS context; it must verify, so a forged endpoint never gets the API key."""
    hits: Counter[str] = Counter()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*_self_signed(tmp_path))
    runner = web.AppRunner(_app(hits))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = int(runner.addresses[0][1])
    try:
        for _ in range(2):  # the second client reuses the process's context
            async with _client(LOOPBACK) as client:
                with pytest.raises(httpx.HTTPError, match="(?i)certificate"):
                    await client.post(f"https://127.0.0.1:{port}/echo", content=b"{}")
    finally:
        await runner.cleanup()
    assert hits["/echo"] == 0


async def test_a_refused_connection_is_a_connection_error_not_a_timeout() -> None:
    """A target that is down answers at once with a refusal: reporting "no answer within N s" would send its
    owner looking at their model's speed instead of their URL or server."""
    port = free_port()  # nothing listens there
    async with _client(LOOPBACK) as client:
        with pytest.raises(httpx.ConnectError):
            await client.post(f"http://127.0.0.1:{port}/v1/chat/completions", content=b"{}")
        config = TargetConfig(kind="openai_chat", base_url=f"http://127.0.0.1:{port}/v1", model="m")
        policy = RetryPolicy(max_retries=1, budget_s=10.0, base_delay_s=0.01, max_delay_s=0.05)
        reply = await make_adapter(client, config, policy, 1 << 16).complete(
            [{"role": "user", "content": "hi"}]
        )
    assert reply.error_class == "target_error" and "connection failed" in (reply.error or ""), reply.error
