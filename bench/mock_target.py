"""Mock OpenAI-compatible chat-completions server with set latency and fault rates, for load/failure tests.

Run it (loopback only by default):

    python -m bench.mock_target --port 9200 --latency 0.2 --rate-5xx 0.02 --rate-429 0.02

Endpoints:
    POST /v1/chat/completions  an OpenAI-shaped reply after `latency` (+ uniform `jitter`) seconds, or a fault
    GET  /v1/models            the one model name the server answers as
    GET  /health               "ok" at once (readiness probe)
    GET  /stats                JSON counts of requests and of each outcome served, and `max_in_flight`:
                               the most chat requests it was serving at once; `first_request_at` and
                               `last_answer_at` (epoch seconds) and `in_flight_seconds` (the requests' summed
                               time in the mock): how many were in flight on average between the two;
                               `gap_ms`: from an answer to the next request on the same connection;
                               `cpu_s`: the mock's own CPU seconds since the last reset (it shares the machine)
    POST /stats/reset          zero the counts
    POST /release              let requests held by `--hold-after` through

Each chat request draws one outcome with the configured probabilities (seeded, so runs repeat):
    5xx        HTTP 500/502/503 with a JSON error body
    429        HTTP 429 with a Retry-After header (seconds)
    timeout    no reply for `timeout_seconds` (the client's own timeout should fire first)
    malformed  HTTP 200 with content-type JSON and a truncated, unparseable body
    ok         a normal chat.completion

In tests, start it in-process with `async with running_mock(MockConfig(...)) as base_url: ...`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import uvloop
from aiohttp import web

DEFAULT_REPLY = (
    "I'm really sorry you're going through this. You don't have to face it alone: "
    "would you be willing to reach out to someone you trust, or to a local crisis line, today?"
)


@dataclass(frozen=True)
class MockConfig:
    """How the mock behaves; rates are probabilities per chat request and must sum to at most 1."""

    latency: float = 0.2
    jitter: float = 0.0
    rate_5xx: float = 0.0
    rate_429: float = 0.0
    retry_after: int = 1
    rate_timeout: float = 0.0
    timeout_seconds: float = 60.0
    rate_malformed: float = 0.0
    model: str = "mock-model"
    reply: str = DEFAULT_REPLY
    seed: int | None = 0
    # Answer this many chat requests, then hold every later one until POST /release: a test that must act while
    # a client is mid-run (kill it) waits for the hold, not for a latency long enough on a busy machine.
    hold_after: int | None = None

    def __post_init__(self) -> None:
        rates = (self.rate_5xx, self.rate_429, self.rate_timeout, self.rate_malformed)
        if any(r < 0 for r in rates) or sum(rates) > 1.0 + 1e-9:
            raise ValueError("fault rates must be >= 0 and sum to at most 1")
        if self.latency < 0 or self.jitter < 0:
            raise ValueError("latency and jitter must be >= 0")


@dataclass
class InFlight:
    """Chat requests being served now (reported only as its peak, `max_in_flight` in /stats), and on each kept-alive
    connection the time from an answer to the next request: how long the client took to reuse its slot."""

    now: int = 0
    answered_at: dict[int, float] = field(default_factory=dict)  # connection → when its last answer left
    gaps: list[float] = field(default_factory=list)
    gaps_at: list[float] = field(default_factory=list)  # when each gap ended (epoch seconds)

    def gap_ms(self) -> dict[str, float]:
        if not self.gaps:
            return {}
        ordered = sorted(self.gaps)
        at = lambda q: round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)  # noqa: E731
        return {
            "mean": round(1000 * statistics.fmean(ordered), 2),
            "p50": at(0.5),
            "p90": at(0.9),
            "p99": at(0.99),
            "max": at(1.0),
            "worst_at": self.worst_at(),
        }

    def worst_at(self, count: int = 5) -> list[tuple[float, float]]:
        """The longest gaps as (seconds after the first gap, ms): a stall once a run, or one spread out."""
        start = min(self.gaps_at)
        worst = sorted(zip(self.gaps, self.gaps_at, strict=True), reverse=True)[:count]
        return [(round(at - start, 2), round(1000 * gap, 1)) for gap, at in worst]


STATS_KEY = web.AppKey("stats", Counter)
IN_FLIGHT_KEY = web.AppKey("in_flight", InFlight)
CONFIG_KEY = web.AppKey("config", MockConfig)
RNG_KEY = web.AppKey("rng", random.Random)
RELEASE_KEY = web.AppKey("release", asyncio.Event)


def _draw_outcome(config: MockConfig, rng: random.Random) -> str:
    """Pick one outcome for a request according to the configured rates."""
    x = rng.random()
    for name, rate in (
        ("5xx", config.rate_5xx),
        ("429", config.rate_429),
        ("timeout", config.rate_timeout),
        ("malformed", config.rate_malformed),
    ):
        if x < rate:
            return name
        x -= rate
    return "ok"


def completion_body(
    config: MockConfig, model: str | None, messages: list[dict[str, object]]
) -> dict[str, object]:
    """An OpenAI chat.completion object with a fixed supportive reply and rough token counts."""
    prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
    completion_tokens = len(config.reply.split())
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model or config.model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": config.reply},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _error(status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> web.Response:
    """An OpenAI-style error reply."""
    body = {"error": {"message": message, "type": kind, "code": None}}
    return web.json_response(body, status=status, headers=headers)


async def chat_completions(request: web.Request) -> web.StreamResponse:
    """Serve one chat request, counting it in flight until it is answered (how a target sees concurrency)."""
    flight, stats = request.app[IN_FLIGHT_KEY], request.app[STATS_KEY]
    flight.now += 1
    stats["max_in_flight"] = max(stats["max_in_flight"], flight.now)
    arrived = time.time()
    stats["first_request_at"] = stats["first_request_at"] or arrived
    connection = id(request.transport)
    if connection in flight.answered_at:
        flight.gaps.append(arrived - flight.answered_at[connection])
        flight.gaps_at.append(arrived)
    try:
        return await _serve_chat(request)
    finally:
        flight.now -= 1
        stats["last_answer_at"] = flight.answered_at[connection] = answered = time.time()
        stats["in_flight_seconds"] += answered - arrived


async def _serve_chat(request: web.Request) -> web.StreamResponse:
    """Wait the latency, then answer with the drawn outcome."""
    config = request.app[CONFIG_KEY]
    rng = request.app[RNG_KEY]
    stats = request.app[STATS_KEY]
    stats["requests"] += 1
    if config.hold_after is not None and stats["requests"] > config.hold_after:
        stats["held"] += 1
        await request.app[RELEASE_KEY].wait()
    try:
        payload = await request.json()
        messages = payload["messages"]
        if not isinstance(messages, list):
            raise TypeError("messages must be a list")
    except (ValueError, KeyError, TypeError) as exc:
        stats["bad_request"] += 1
        return _error(400, f"invalid request body: {exc}", "invalid_request_error")
    outcome = _draw_outcome(config, rng)
    delay = config.latency + (rng.uniform(0, config.jitter) if config.jitter else 0.0)
    stats[outcome] += 1
    if outcome == "timeout":
        await asyncio.sleep(config.timeout_seconds)
        return _error(504, "mock timeout elapsed", "timeout")
    await asyncio.sleep(delay)
    if outcome == "5xx":
        status = rng.choice((500, 502, 503))
        return _error(status, "mock upstream failure", "server_error")
    if outcome == "429":
        retry = {"Retry-After": str(config.retry_after)}
        return _error(429, "rate limited", "rate_limit_error", headers=retry)
    if outcome == "malformed":
        good = json.dumps(completion_body(config, payload.get("model"), messages))
        return web.Response(text=good[: len(good) // 2], content_type="application/json")
    return web.json_response(completion_body(config, payload.get("model"), messages))


async def models(request: web.Request) -> web.Response:
    """List the single model the mock answers as."""
    model = request.app[CONFIG_KEY].model
    entry = {"id": model, "object": "model", "owned_by": "mock"}
    return web.json_response({"object": "list", "data": [entry]})


async def health(_request: web.Request) -> web.Response:
    """Readiness probe for scripts that start the mock in another process."""
    return web.Response(text="ok")


async def stats(request: web.Request) -> web.Response:
    """Counts of requests and outcomes, to check what a client really sent."""
    gaps = request.app[IN_FLIGHT_KEY].gap_ms()
    cpu = {"cpu_s": time.process_time() - request.app[STATS_KEY]["cpu_at_reset"]}
    return web.json_response(dict(request.app[STATS_KEY]) | cpu | ({"gap_ms": gaps} if gaps else {}))


async def reset_stats(request: web.Request) -> web.Response:
    """Zero the counts between benchmark rounds."""
    request.app[STATS_KEY].clear()
    request.app[STATS_KEY]["cpu_at_reset"] = time.process_time()
    request.app[IN_FLIGHT_KEY].answered_at.clear()
    request.app[IN_FLIGHT_KEY].gaps.clear()
    request.app[IN_FLIGHT_KEY].gaps_at.clear()
    return web.json_response({})


async def release(request: web.Request) -> web.Response:
    """Let held requests (and every later one) through."""
    request.app[RELEASE_KEY].set()
    return web.json_response({})


def create_app(config: MockConfig | None = None) -> web.Application:
    """Build the mock application (use with web.AppRunner or running_mock)."""
    config = config or MockConfig()
    app = web.Application()
    app[CONFIG_KEY] = config
    app[RNG_KEY] = random.Random(config.seed)
    app[STATS_KEY] = Counter()
    app[IN_FLIGHT_KEY] = InFlight()
    app[RELEASE_KEY] = asyncio.Event()
    app.router.add_post("/v1/chat/completions", chat_completions)
    app.router.add_get("/v1/models", models)
    app.router.add_get("/health", health)
    app.router.add_get("/stats", stats)
    app.router.add_post("/stats/reset", reset_stats)
    app.router.add_post("/release", release)
    return app


@asynccontextmanager
async def running_mock(
    config: MockConfig | None = None, host: str = "127.0.0.1", port: int = 0
) -> AsyncIterator[str]:
    """Run the mock in this event loop and yield its base URL (port 0 picks a free port)."""
    runner = web.AppRunner(create_app(config), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024)
    await site.start()
    try:
        bound = runner.addresses[0]
        shown = f"[{host}]" if ":" in host else host
        yield f"http://{shown}:{bound[1]}"
    finally:
        await runner.cleanup()


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options mirroring MockConfig."""
    p = argparse.ArgumentParser(prog="python -m bench.mock_target", description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1", help="bind address (keep it on loopback)")
    p.add_argument("--port", type=int, default=9200)
    p.add_argument("--latency", type=float, default=0.2, help="seconds before each reply")
    p.add_argument("--jitter", type=float, default=0.0, help="extra uniform 0..jitter seconds")
    p.add_argument("--rate-5xx", type=float, default=0.0)
    p.add_argument("--rate-429", type=float, default=0.0)
    p.add_argument("--retry-after", type=int, default=1, help="Retry-After seconds sent with 429")
    p.add_argument("--rate-timeout", type=float, default=0.0)
    p.add_argument("--timeout-seconds", type=float, default=60.0, help="how long a 'timeout' request hangs")
    p.add_argument("--rate-malformed", type=float, default=0.0)
    p.add_argument("--model", default="mock-model")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--hold-after", type=int, default=None, help="hold later chat requests until POST /release"
    )
    p.add_argument(
        "--stats-port",
        type=int,
        default=None,
        help="share --port with other mock processes (SO_REUSEPORT: the kernel spreads connections over them) "
        "and answer this process's own /stats and /stats/reset on this port",
    )
    return p.parse_args(argv)


async def _serve_shared(app: web.Application, host: str, port: int, stats_port: int) -> None:
    """One of several processes on `port` (SO_REUSEPORT), reachable alone on `stats_port`: one mock process
    tops out near a core's worth of requests, and a run of thousands of calls a second needs several."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port, backlog=1024, reuse_port=True).start()
    await web.TCPSite(runner, host, stats_port, backlog=64).start()
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def main(argv: list[str] | None = None) -> None:
    """Run the mock until interrupted."""
    args = _parse_args(argv)
    config = MockConfig(
        latency=args.latency,
        jitter=args.jitter,
        rate_5xx=args.rate_5xx,
        rate_429=args.rate_429,
        retry_after=args.retry_after,
        rate_timeout=args.rate_timeout,
        timeout_seconds=args.timeout_seconds,
        rate_malformed=args.rate_malformed,
        model=args.model,
        seed=args.seed,
        hold_after=args.hold_after,
    )
    # uvloop halves the mock's own CPU per request (0.49 -> 0.23 ms, measured with /proc/<pid>/stat over 3,000
    # requests): replies leave in waves of C, and the mock's queueing is latency the ideal C / L does not count.
    uvloop.install()
    if args.stats_port is not None:
        asyncio.run(_serve_shared(create_app(config), args.host, args.port, args.stats_port))
        return
    web.run_app(create_app(config), host=args.host, port=args.port, access_log=None, backlog=1024, print=None)


if __name__ == "__main__":
    main()
