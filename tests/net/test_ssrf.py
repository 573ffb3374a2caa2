"""The SSRF guard refuses internal targets in every notation and admits what the allowlist names."""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import pytest

from app.net.ssrf import Allowlist, UnsafeURLError, check_url, parse_ipv4_any, resolve_checked

PUBLIC_ONLY = Allowlist.parse("")

# Each entry is a distinct way of writing a URL that must never be contacted with an empty allowlist.
REFUSED = [
    # IPv4 loopback in every legacy notation
    "http://127.0.0.1/",
    "http://127.0.0.1:8080/v1/chat/completions",
    "http://127.10.20.30/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://017700000001/",
    "http://0177.0.0.1/",
    "http://0x7f.0.0.1/",
    "http://0x7F.0x0.0x0.0x1/",
    "http://127.1/",
    "http://127.0.1/",
    "http://127.0.0.1./",
    "http://0/",
    "http://0.0.0.0:9200/",
    # IPv6 forms
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]:8000/",
    "http://[::]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:10.0.0.1]/",
    "http://[fe80::1%25eth0]/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://[fd12:3456::1]/",
    "http://[ff02::1]/",
    "http://[fec0::1]/",
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:c0a8:101::1]/",
    "http://[2001:db8::1]/",
    # private, shared, link-local, multicast, reserved, broadcast
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://172.31.255.255/",
    "http://192.168.1.1/",
    "http://0xc0.0xa8.1.1/",
    "http://3232235777/",
    "http://100.64.0.1/",
    "http://100.127.255.254/",
    "http://169.254.1.1/",
    "http://224.0.0.1/",
    "http://239.255.255.250/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://192.0.2.10/",
    "http://198.18.0.1/",
    # cloud metadata
    "http://169.254.169.254/latest/meta-data/",
    "http://2852039166/",
    "http://0xa9fea9fe/",
    "http://[::ffff:169.254.169.254]/",
    "http://[fd00:ec2::254]/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://METADATA.GOOGLE.INTERNAL./",
    "http://metadata/",
    "http://100.100.100.200/",
    # special names and malformed hosts
    "http://localhost/",
    "http://LOCALHOST:9200/",
    "http://localhost./",
    "http://api.localhost/",
    "http://1.2.3.4.5/",
    "http://256.0.0.1/",
    "http://0x100000000/",
    "http://%31%32%37.0.0.1/",
    "http://１２７.０.０.１/",
    "http://",
    "http:///path-only",
    "http://:80/",
    # credentials, schemes, parser tricks
    "http://user:pass@example.com/",
    "http://user@example.com/",
    "http://@example.com/",
    "http://example.com\\@127.0.0.1/",
    "http://example.com@127.0.0.1/",
    "http://127.0.0.1\t/",
    "http://exa mple.com/",
    "ftp://example.com/",
    "file:///etc/passwd",
    "gopher://example.com:70/",
    "ws://example.com/",
    "javascript:alert(1)",
    "example.com/v1",
    "//example.com/v1",
    "http://example.com:0/",
    "http://example.com:99999/",
    "",
]


def test_at_least_thirty_distinct_refused_forms() -> None:
    assert len(set(REFUSED)) == len(REFUSED) >= 30


@pytest.mark.parametrize("url", REFUSED)
def test_refused(url: str) -> None:
    with pytest.raises(UnsafeURLError) as info:
        check_url(url, PUBLIC_ONLY)
    message = str(info.value)
    assert message.startswith("refused ") and "\n" not in message


@pytest.mark.parametrize(
    "url",
    [
        "https://api.openai.com/v1/chat/completions",
        "http://example.com:8080/v1",
        "https://models.example.org./v1",
        "https://8.8.8.8/",
        "http://1.1.1.1:443/x?y=z",
        "https://[2606:4700:4700::1111]/",
        "https://[64:ff9b::808:808]/",
        "HTTPS://API.Example.COM/V1",
        "https://xn--bcher-kva.example/",
        "https://bücher.example/",
    ],
)
def test_public_forms_allowed(url: str) -> None:
    check_url(url, PUBLIC_ONLY)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://2130706433/", ["2130706433", "127.0.0.1", "loopback"]),
        ("http://[::ffff:10.0.0.1]/", ["10.0.0.1", "private"]),
        ("http://100.64.0.1/", ["shared"]),
        ("http://169.254.169.254/", ["metadata"]),
        ("http://[fe80::1%25eth0]/", ["link-local"]),
        ("http://u:p@example.com/", ["credentials"]),
        ("ftp://example.com/", ["scheme", "ftp"]),
        ("http://224.0.0.1/", ["multicast"]),
    ],
)
def test_refusal_says_what_and_why(url: str, words: list[str]) -> None:
    with pytest.raises(UnsafeURLError) as info:
        check_url(url, PUBLIC_ONLY)
    for word in words:
        assert word in str(info.value)


def test_allowlist_admits_loopback_cidr_in_any_notation() -> None:
    allow = Allowlist.parse("127.0.0.0/8")
    for url in (
        "http://127.0.0.1:9200/",
        "http://2130706433/",
        "http://127.1/",
        "http://[::ffff:127.0.0.1]/",
    ):
        check_url(url, allow)
    with pytest.raises(UnsafeURLError):
        check_url("http://[::1]/", allow)
    with pytest.raises(UnsafeURLError):
        check_url("http://10.0.0.1/", allow)


def test_allowlist_admits_private_cidr_only_inside_it() -> None:
    allow = Allowlist.parse(" 10.20.0.0/16 , fd00:1::/32 ")
    check_url("http://10.20.3.4/", allow)
    check_url("http://[fd00:1::5]/", allow)
    with pytest.raises(UnsafeURLError):
        check_url("http://10.21.0.1/", allow)


def test_allowlist_admits_host_names_and_wildcards() -> None:
    allow = Allowlist.parse("127.0.0.0/8,::1,localhost,models.internal,*.corp.example")
    check_url("http://localhost:8000/", allow)
    check_url("http://models.internal/v1", allow)
    check_url("http://gpu1.corp.example/v1", allow)
    check_url("http://[::1]:8000/", allow)
    with pytest.raises(UnsafeURLError):
        check_url("http://metadata.google.internal/", allow)


def test_localhost_admitted_when_its_addresses_are() -> None:
    check_url("http://localhost/", Allowlist.parse("127.0.0.0/8,::1"))
    with pytest.raises(UnsafeURLError):
        check_url("http://localhost/", Allowlist.parse("127.0.0.0/8"))


def test_metadata_needs_exact_entry_even_inside_admitted_range() -> None:
    with pytest.raises(UnsafeURLError):
        check_url("http://169.254.169.254/", Allowlist.parse("169.254.0.0/16"))
    check_url("http://169.254.10.1/", Allowlist.parse("169.254.0.0/16"))
    check_url("http://169.254.169.254/", Allowlist.parse("169.254.169.254/32"))


def test_credentials_refused_even_when_host_is_admitted() -> None:
    with pytest.raises(UnsafeURLError, match="credentials"):
        check_url("http://admin:secret@127.0.0.1/", Allowlist.parse("127.0.0.0/8"))


@pytest.mark.parametrize("entry", ["not a host", "127.1", "http://x.com", "a..b", "999.1.1.1/8"])
def test_allowlist_rejects_bad_entries(entry: str) -> None:
    with pytest.raises(ValueError):
        Allowlist.parse(entry)


def test_empty_allowlist_setting_means_public_only() -> None:
    assert Allowlist.parse("") == Allowlist.parse(None) == Allowlist.parse(" , ")


@pytest.mark.parametrize(
    "host",
    ["2130706433", "0177.0.0.1", "0x7f.1", "127.1", "0", "1.16777215", "0xa9.0xfe.0xa9.0xfe", "010.1.2.3"],
)
def test_numeric_ipv4_parsing_agrees_with_inet_aton(host: str) -> None:
    expected = ipaddress.IPv4Address(socket.inet_aton(host))
    assert parse_ipv4_any(host) == expected


async def test_resolver_refuses_name_that_resolves_to_loopback() -> None:
    with pytest.raises(UnsafeURLError, match="localhost"):
        await resolve_checked("localhost", 80, PUBLIC_ONLY)


async def test_resolver_returns_addresses_the_allowlist_admits() -> None:
    addresses = await resolve_checked("localhost", 80, Allowlist.parse("127.0.0.0/8,::1"))
    assert addresses and all(ipaddress.ip_address(a).is_loopback for a in addresses)


async def test_resolver_checks_ip_literals_without_dns() -> None:
    assert await resolve_checked("8.8.8.8", 443, PUBLIC_ONLY) == ["8.8.8.8"]
    with pytest.raises(UnsafeURLError):
        await resolve_checked("0x7f.1", 80, PUBLIC_ONLY)


async def test_listed_name_may_not_resolve_to_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name on the allowlist that DNS points at the metadata service (rebinding) is still refused."""

    async def fake_getaddrinfo(host: str, port: int, **_: object) -> list[tuple[object, ...]]:
        addr = {"models.internal": "10.1.2.3", "evil.internal": "169.254.169.254"}[host]
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (addr, port))]

    loop = asyncio.get_running_loop()
    monkeypatch.setattr(loop, "getaddrinfo", fake_getaddrinfo)
    allow = Allowlist.parse("models.internal,evil.internal")
    assert await resolve_checked("models.internal", 80, allow) == ["10.1.2.3"]
    with pytest.raises(UnsafeURLError, match="metadata"):
        await resolve_checked("evil.internal", 80, allow)
    with pytest.raises(UnsafeURLError, match="private"):
        await resolve_checked("models.internal", 80, PUBLIC_ONLY)


async def test_name_with_one_private_address_among_public_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    async def fake_getaddrinfo(host: str, port: int, **_: object) -> list[tuple[object, ...]]:
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.168.0.10", port)),
        ]

    monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", fake_getaddrinfo)
    with pytest.raises(UnsafeURLError, match="192.168.0.10"):
        await resolve_checked("mixed.example", 443, PUBLIC_ONLY)
