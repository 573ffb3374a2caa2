"""SSRF guard: decide whether a user-supplied endpoint URL or a resolved address may be contacted."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

ALLOWED_SCHEMES = frozenset({"http", "https"})

# Cloud metadata services: refused even inside an admitted range unless the allowlist names them exactly.
METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),  # AWS, GCP, Azure, OpenStack, DigitalOcean
        ipaddress.ip_address("169.254.170.2"),  # AWS ECS task metadata
        ipaddress.ip_address("169.254.169.123"),  # AWS time sync
        ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
        ipaddress.ip_address("fd00:ec2::254"),  # AWS IMDS over IPv6
    }
)
METADATA_NAMES = frozenset(
    {"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"}
)
LOCALHOST_ADDRESSES: tuple[IPAddress, ...] = (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network
# Ordered: the first match names the reason. Python's own is_global/is_private vary between versions
# (3.11.7 calls 64:ff9b::7f00:1 and fec0::1 global), so the list is explicit.
_BLOCKED: tuple[tuple[IPNetwork, str], ...] = (
    (_V4("0.0.0.0/8"), "unspecified/this-network"),
    (_V4("127.0.0.0/8"), "loopback"),
    (_V4("10.0.0.0/8"), "private"),
    (_V4("172.16.0.0/12"), "private"),
    (_V4("192.168.0.0/16"), "private"),
    (_V4("100.64.0.0/10"), "shared address space (carrier-grade NAT)"),
    (_V4("169.254.0.0/16"), "link-local"),
    (_V4("192.0.0.0/24"), "reserved (IETF protocol assignments)"),
    (_V4("192.0.2.0/24"), "reserved (documentation)"),
    (_V4("198.51.100.0/24"), "reserved (documentation)"),
    (_V4("203.0.113.0/24"), "reserved (documentation)"),
    (_V4("192.88.99.0/24"), "reserved (6to4 relay anycast)"),
    (_V4("198.18.0.0/15"), "reserved (benchmarking)"),
    (_V4("224.0.0.0/4"), "multicast"),
    (_V4("240.0.0.0/4"), "reserved"),
    (_V6("::/128"), "unspecified"),
    (_V6("::1/128"), "loopback"),
    (_V6("64:ff9b:1::/48"), "private (local-use NAT64)"),
    (_V6("100::/64"), "reserved (discard-only)"),
    (_V6("2001:db8::/32"), "reserved (documentation)"),
    (_V6("2001:2::/48"), "reserved (benchmarking)"),
    (_V6("2001:10::/28"), "reserved (ORCHID)"),
    (_V6("2001:20::/28"), "reserved (ORCHIDv2)"),
    (_V6("3fff::/20"), "reserved (documentation)"),
    (_V6("5f00::/16"), "reserved (SRv6 SIDs)"),
    (_V6("fc00::/7"), "private (unique local)"),
    (_V6("fe80::/10"), "link-local"),
    (_V6("fec0::/10"), "site-local (deprecated)"),
    (_V6("ff00::/8"), "multicast"),
    (_V6("::/8"), "reserved (includes IPv4-compatible ::a.b.c.d)"),
)
_NAT64 = _V6("64:ff9b::/96")
_TEREDO = _V6("2001::/32")
_LABEL = r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?"
_HOSTNAME_RE = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*$")


class UnsafeURLError(ValueError):
    """A URL, host or address the service must not contact; the one-line message says what and why."""

    def __init__(self, subject: str, reason: str) -> None:
        self.subject = subject
        self.reason = reason
        super().__init__(f"refused {subject}: {reason}")


@dataclass(frozen=True)
class Allowlist:
    """Networks and host names that may be contacted even though they are not public."""

    networks: tuple[IPNetwork, ...] = ()
    names: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = field(default=())

    @classmethod
    def parse(cls, setting: str | None) -> Allowlist:
        """Build from a comma-separated setting of CIDRs, addresses, host names and '*.domain' wildcards."""
        networks: list[IPNetwork] = []
        names: set[str] = set()
        suffixes: list[str] = []
        for raw in (setting or "").split(","):
            entry = raw.strip().lower()
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
                continue
            except ValueError:
                pass
            name = entry.rstrip(".")
            wildcard = name.startswith("*.")
            if wildcard:
                name = name[2:]
            if not _HOSTNAME_RE.match(name) or _looks_numeric(name):
                raise ValueError(f"allowlist entry {raw.strip()!r} is not a CIDR, an address or a host name")
            if wildcard:
                suffixes.append("." + name)
            else:
                names.add(name)
        return cls(tuple(networks), frozenset(names), tuple(suffixes))

    def admits_name(self, host: str) -> bool:
        """True when the host name itself is listed (exactly or under a '*.' wildcard)."""
        name = host.lower().rstrip(".")
        return name in self.names or any(name.endswith(s) for s in self.suffixes)

    def admits_address(self, ip: IPAddress) -> bool:
        """True when a listed network holds ip; metadata addresses need an exact single-address entry."""
        ip = _unmap(ip)
        if ip in METADATA_ADDRESSES:
            return any(n.num_addresses == 1 and n.network_address == ip for n in self.networks)
        return any(ip.version == n.version and ip in n for n in self.networks)


def _unmap(ip: IPAddress) -> IPAddress:
    """Treat an IPv4-mapped IPv6 address (::ffff:a.b.c.d) as the IPv4 address it carries."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses that a 6to4 or Teredo IPv6 address would reach."""
    found: list[ipaddress.IPv4Address] = []
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip in _TEREDO and ip.teredo is not None:
        found.extend(ip.teredo)
    return found


def address_refusal(ip: IPAddress) -> str | None:
    """Why ip must not be contacted (None when it is a public unicast address)."""
    ip = _unmap(ip)
    if ip in METADATA_ADDRESSES:
        return "cloud metadata service"
    if isinstance(ip, ipaddress.IPv6Address) and ip in _NAT64:
        inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        why = address_refusal(inner)
        return None if why is None else f"NAT64 address embedding {inner} ({why})"
    for net, reason in _BLOCKED:
        if ip.version == net.version and ip in net:
            return reason
    if isinstance(ip, ipaddress.IPv4Address) and ip == ipaddress.IPv4Address("255.255.255.255"):
        return "broadcast"
    if isinstance(ip, ipaddress.IPv6Address):
        for inner in _embedded_ipv4(ip):
            why = address_refusal(inner)
            if why is not None:
                return f"IPv6 transition address embedding {inner} ({why})"
    if not ip.is_global:
        return "not globally routable"
    return None


def check_address(ip: IPAddress | str, allowlist: Allowlist, *, what: str = "") -> IPAddress:
    """Raise UnsafeURLError unless ip is public or admitted by the allowlist; return it parsed."""
    addr = ipaddress.ip_address(ip.split("%", 1)[0]) if isinstance(ip, str) else ip
    if allowlist.admits_address(addr):
        return addr
    why = address_refusal(addr)
    if why is not None:
        shown = _unmap(addr)
        label = f"host {what!r} (= {shown})" if what and what != str(shown) else f"address {shown}"
        raise UnsafeURLError(label, f"{why} (not in the allowlist)")
    return addr


def _parse_ipv4_part(part: str) -> int | None:
    """One inet_aton/WHATWG IPv4 part: decimal, 0x-hex or 0-leading octal; None if not a number."""
    try:
        if part[:2] in ("0x", "0X"):
            return int(part[2:], 16) if part[2:] else 0
        if len(part) > 1 and part.startswith("0"):
            return int(part[1:], 8)
        return int(part, 10) if part.isascii() and part.isdigit() else None
    except ValueError:
        return None


def _looks_numeric(host: str) -> bool:
    """True when the last label is a number, which browsers and inet_aton read as an IPv4 address."""
    last = host.rstrip(".").rsplit(".", 1)[-1]
    return bool(last) and _parse_ipv4_part(last) is not None


def parse_ipv4_any(host: str) -> ipaddress.IPv4Address | None:
    """Parse IPv4 in any legacy notation (2130706433, 0177.0.0.1, 0x7f.1, 127.1, 0); None if not numeric."""
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()  # one trailing dot is allowed, as in WHATWG
    if not parts or len(parts) > 4 or any(p == "" for p in parts):
        return None
    values = [_parse_ipv4_part(p) for p in parts]
    if any(v is None for v in values):
        return None
    nums = [v for v in values if v is not None]
    if any(v > 255 for v in nums[:-1]) or nums[-1] >= 256 ** (5 - len(nums)):
        raise UnsafeURLError(f"host {host!r}", "an out-of-range numeric IPv4 address")
    value = nums[-1]
    for i, v in enumerate(nums[:-1]):
        value += v << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def parse_ip_host(host: str) -> IPAddress | None:
    """Return the address a host string denotes if it is an IP literal in any notation, else None."""
    h = unicodedata.normalize("NFKC", host).strip().lower()
    if h.startswith("[") and h.endswith("]"):
        h = h[1:-1]
    if ":" in h:
        h = re.split(r"%25|%", h, maxsplit=1)[0]  # drop an IPv6 zone id (RFC 6874)
        try:
            return ipaddress.IPv6Address(h)
        except ValueError as exc:
            raise UnsafeURLError(f"host {host!r}", "not a valid IPv6 address") from exc
    ip = parse_ipv4_any(h)
    if ip is None and _looks_numeric(h):
        raise UnsafeURLError(f"host {host!r}", "a name ending in a number that is not a valid IPv4 address")
    return ip


def _special_name_addresses(name: str) -> tuple[str, tuple[IPAddress, ...]] | None:
    """Names that always mean an internal service, with the addresses they stand for."""
    if name == "localhost" or name.endswith(".localhost"):
        return "loopback name", LOCALHOST_ADDRESSES
    if name in METADATA_NAMES:
        return "cloud metadata name", (ipaddress.ip_address("169.254.169.254"),)
    return None


def check_host(host: str, allowlist: Allowlist) -> IPAddress | None:
    """Refuse an internal host (IP literal in any notation or special name); return the address if literal."""
    if not host:
        raise UnsafeURLError("URL", "no host")
    ip = parse_ip_host(host)
    if ip is not None:
        return check_address(ip, allowlist, what=host)
    name = unicodedata.normalize("NFKC", host).lower()
    if name.endswith(".."):
        raise UnsafeURLError(f"host {host!r}", "a host with an empty label")
    name = name.rstrip(".")
    if "%" in name or not name.isascii():
        raise UnsafeURLError(f"host {host!r}", "a host with encoded or non-ASCII characters")
    if allowlist.admits_name(name):
        return None
    special = _special_name_addresses(name)
    if special is not None:
        why, addrs = special
        if not all(allowlist.admits_address(a) for a in addrs):
            raise UnsafeURLError(f"host {host!r}", f"a {why} (not in the allowlist)")
    if not _HOSTNAME_RE.match(name):
        raise UnsafeURLError(f"host {host!r}", "not a valid host name")
    return None


def check_url(url: str, allowlist: Allowlist) -> None:
    """Raise UnsafeURLError unless url is http(s), has a host, carries no credentials and is not internal."""
    if not isinstance(url, str) or not url:
        raise UnsafeURLError("URL", "empty")
    shown = repr(url if len(url) <= 200 else url[:200] + "...")
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F or c == "\\" for c in url):
        raise UnsafeURLError(f"URL {shown}", "contains whitespace, control characters or backslashes")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeURLError(f"URL {shown}", f"cannot be parsed ({exc})") from exc
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise UnsafeURLError(f"URL {shown}", f"scheme {scheme or '(none)'!r} is not http or https")
    if "@" in parts.netloc:
        raise UnsafeURLError(f"URL {shown}", "credentials (user info) are not allowed in the URL")
    if not parts.hostname:
        raise UnsafeURLError(f"URL {shown}", "no host")
    if port == 0:
        raise UnsafeURLError(f"URL {shown}", "port 0")
    try:
        if parts.hostname.isascii():
            check_host(parts.hostname, allowlist)
        else:  # an IDN: only its IDNA (punycode) form, checked below, is ever resolved
            literal = parse_ip_host(parts.hostname)
            if literal is not None:
                check_address(literal, allowlist, what=parts.hostname)
        parsed = httpx.URL(url)
        # The client parses with httpx: its view must pass too, so a parser mismatch cannot slip by.
        if parsed.scheme not in ALLOWED_SCHEMES or parsed.userinfo or not parsed.raw_host:
            raise UnsafeURLError("URL", "httpx reads a different scheme, credentials or no host")
        wire_host = parsed.raw_host.decode("ascii")
        if wire_host != parts.hostname:
            check_host(wire_host, allowlist)
    except httpx.InvalidURL as exc:
        raise UnsafeURLError(f"URL {shown}", f"cannot be parsed ({exc})") from exc
    except UnsafeURLError as exc:
        raise UnsafeURLError(
            f"URL {shown}", f"{exc.subject} is {exc.reason}" if exc.subject != "URL" else exc.reason
        ) from None


async def resolve_addresses(
    host: str, port: int, allowlist: Allowlist, family: int = socket.AF_UNSPEC
) -> list[tuple[int, str]]:
    """Resolve host and return (family, address) pairs, refusing the host if any address is refused."""
    literal = check_host(host, allowlist)
    if literal is not None:
        fam = socket.AF_INET6 if literal.version == 6 else socket.AF_INET
        return [(fam, str(literal))]
    name = host.lower().rstrip(".")
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(name, port, family=family, type=socket.SOCK_STREAM)
    pairs: list[tuple[int, str]] = []
    for fam, _type, _proto, _canon, sockaddr in infos:
        addr = str(sockaddr[0])
        if (int(fam), addr) not in pairs:
            pairs.append((int(fam), addr))
    if not pairs:
        raise UnsafeURLError(f"host {host!r}", "it resolved to no address")
    name_admitted = allowlist.admits_name(name)
    for _fam, addr in pairs:
        ip = ipaddress.ip_address(addr.split("%", 1)[0])
        if name_admitted and _unmap(ip) not in METADATA_ADDRESSES:
            continue  # a listed name may resolve anywhere except a metadata service (rebinding guard)
        check_address(ip, allowlist, what=host)
    return pairs


async def resolve_checked(host: str, port: int, allowlist: Allowlist) -> list[str]:
    """Resolve host and return its addresses only if every one may be contacted."""
    return [addr for _fam, addr in await resolve_addresses(host, port, allowlist)]
