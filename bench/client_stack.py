"""Throughput of HTTP client stacks against the loopback mock: httpx, httpx-aiohttp (guarded), aiohttp, and the
runner's own path (the OpenAI adapter's `complete` on `make_client`: body, gate, retries, capped read, parse).

    python -m bench.client_stack            # 3000 requests at 64 and 256 concurrent connections
    python -m bench.client_stack --quick    # 600 requests, for a fast look

The mock runs in a separate process (python -m bench.mock_target) so server and client do not share one core.
Ideal requests/s is C / latency: every connection always busy with one request.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiohttp
import httpx

from app.net.client import make_client
from app.net.ssrf import Allowlist
from app.targets.base import TargetConfig
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy
from bench.ports import free_port

BODY = {"model": "mock-model", "messages": [{"role": "user", "content": "How are you today?"}]}
Send = Callable[[], Awaitable[None]]


@dataclass
class Result:
    """One stack at one concurrency."""

    stack: str
    concurrency: int
    requests: int
    errors: int
    seconds: float
    latencies: list[float]
    cpu_s: float = 0.0  # this process's CPU time over the timed requests (the mock runs elsewhere)

    @property
    def rps(self) -> float:
        """Completed requests per second of wall time."""
        return self.requests / self.seconds


def start_mock(port: int, latency: float) -> subprocess.Popen[bytes]:
    """Start the mock in its own process and wait until /health answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.mock_target", "--port", str(port), "--latency", str(latency)],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("mock target did not start")


async def _drive(send: Send, concurrency: int, total: int) -> tuple[int, float, list[float], float]:
    """Run total requests with concurrency workers; return errors, seconds, latencies and CPU seconds."""
    remaining = total
    errors = 0
    latencies: list[float] = []

    async def worker() -> None:
        nonlocal remaining, errors
        while remaining > 0:
            remaining -= 1
            t0 = time.perf_counter()
            try:
                await send()
            except Exception:  # counted, not raised: the benchmark reports failures
                errors += 1
            latencies.append(time.perf_counter() - t0)

    start, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return errors, time.perf_counter() - start, latencies, time.process_time() - cpu


async def _run_httpx(client: httpx.AsyncClient, url: str, c: int, n: int, name: str) -> Result:
    """Drive an httpx client (default or httpx-aiohttp transport)."""

    async def send() -> None:
        r = await client.post(url, json=BODY)
        r.raise_for_status()
        r.json()

    async with client:
        await _drive(send, c, c)  # warm-up: open the pool's connections, not timed
        errors, seconds, lat, cpu = await _drive(send, c, n)
    return Result(name, c, n, errors, seconds, lat, cpu)


async def _run_aiohttp(url: str, c: int, n: int) -> Result:
    """Drive a plain aiohttp session, the lower bound on overhead."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=c)) as session:

        async def send() -> None:
            async with session.post(url, json=BODY) as r:
                r.raise_for_status()
                await r.json()

        await _drive(send, c, c)
        errors, seconds, lat, cpu = await _drive(send, c, n)
    return Result("raw aiohttp", c, n, errors, seconds, lat, cpu)


async def _run_adapter(base: str, c: int, n: int) -> Result:
    """Drive the OpenAI adapter as a shard does: what a target call costs the runner, end to end."""
    config = TargetConfig(kind="openai_chat", base_url=f"{base}/v1", model="mock-model", max_concurrency=c)
    client = make_client(
        max_connections=c, timeout=30, allowlist=Allowlist.parse("127.0.0.0/8"), max_response_bytes=1 << 20
    )
    adapter = make_adapter(client, config, RetryPolicy(max_retries=0), max_reply_bytes=1 << 20)
    messages = BODY["messages"]

    async def send() -> None:
        reply = await adapter.complete(messages)  # type: ignore[arg-type]
        if not reply.ok:
            raise RuntimeError(reply.error)

    async with client:
        await _drive(send, c, c)
        errors, seconds, lat, cpu = await _drive(send, c, n)
    return Result("OpenAI adapter on make_client", c, n, errors, seconds, lat, cpu)


async def run_all(base: str, concurrencies: list[int], total: int) -> list[Result]:
    """Every stack at every concurrency, one after another."""
    url = f"{base}/v1/chat/completions"
    allow = Allowlist.parse("127.0.0.0/8")
    results: list[Result] = []
    for c in concurrencies:
        limits = httpx.Limits(max_connections=c, max_keepalive_connections=c)
        plain = httpx.AsyncClient(limits=limits, timeout=30)
        results.append(await _run_httpx(plain, url, c, total, "httpx (default transport)"))
        guarded = make_client(max_connections=c, timeout=30, allowlist=allow, max_response_bytes=1 << 20)
        results.append(await _run_httpx(guarded, url, c, total, "httpx + httpx-aiohttp (make_client)"))
        results.append(await _run_aiohttp(url, c, total))
        results.append(await _run_adapter(base, c, total))
    return results


def render(results: list[Result], latency: float) -> str:
    """A fixed-width table of the results with the ideal C / latency."""
    head = f"{'stack':<38}{'C':>5}{'reqs':>6}{'err':>5}{'secs':>8}{'req/s':>9}{'ideal':>8}{'%ideal':>8}"
    head += f"{'p50 ms':>9}{'p99 ms':>9}{'cpu ms/req':>12}"
    lines = [head, "-" * len(head)]
    for r in results:
        ideal = r.concurrency / latency
        lat = sorted(r.latencies)
        p50 = statistics.median(lat) * 1000
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
        lines.append(
            f"{r.stack:<38}{r.concurrency:>5}{r.requests:>6}{r.errors:>5}{r.seconds:>8.2f}{r.rps:>9.0f}"
            f"{ideal:>8.0f}{100 * r.rps / ideal:>7.0f}%{p50:>9.0f}{p99:>9.0f}{1000 * r.cpu_s / r.requests:>12.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Start the mock, run the stacks, print the table."""
    p = argparse.ArgumentParser(prog="python -m bench.client_stack", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="600 requests instead of 3000")
    p.add_argument("--requests", type=int, default=None)
    p.add_argument("--latency", type=float, default=0.2)
    p.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    args = p.parse_args(argv)
    total = args.requests or (600 if args.quick else 3000)
    port = free_port()
    proc = start_mock(port, args.latency)
    try:
        results = asyncio.run(run_all(f"http://127.0.0.1:{port}", args.concurrency, total))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(f"mock latency {args.latency * 1000:.0f} ms, {total} requests per row (after C warm-up requests)")
    print(render(results, args.latency))


if __name__ == "__main__":
    main()
