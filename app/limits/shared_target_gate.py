"""Per-target limits shared by every worker process through Redis (scale-out mode).

The concurrency cap is a Redis semaphore: a sorted set of holder tokens scored by when they lapse. A process
renews its holders every second (`renew_every_s`) while their attempts run, so a live holder never lapses
however slow the target, and a SIGKILLed process's slots come back within one lease (`shard_lease_s`, the same
promise as its shards) at the latest. Per-minute budgets are GCRA in Redis (`app/limits/gcra.py`, shared
with the API's per-key rate): the leaky bucket of the local aiolimiter (capacity one minute's allowance,
refilled continuously), shared, so the whole service paces a target as one process would. Times come from
Redis's clock (`TIME` inside the scripts, Redis 5 or later), the one clock all machines agree on.

A dead process's slots usually come back within seconds, not a lease: a process takes slots only while it is
subscribed to a presence channel of its own, and a subscription ends with its connection, which the kernel
closes when the process dies. When the cap is full, a waiting caller's script looks (at most every
SWEEP_PERIOD_S) for holders whose owner has had no subscriber for PRESENCE_GRACE_S and frees their slots. Why:
under a rolling restart or a crash the dead process's share of the target would otherwise sit idle for a lease
while the survivors wait for it. The grace covers a live process whose connection dropped and is being made
again; a process cut off from Redis for longer loses its slots then rather than a lease later (it can take no
new one meanwhile), so its calls in flight may run past the cap, as they already could once the lease ran out.
Presence is read with PUBSUB NUMSUB: it needs one Redis, not a Cluster (subscriptions are per node), as arq does.

A slot an attempt has finished with serves this process's next attempt (a caller polling for one, or the next
to ask within SETTLE_S) with no round trip to Redis: one hold per slot instead of a hold and a release per
attempt, and no poll for a caller of ours when one of ours frees a slot. Only for REUSE_S after the slot was taken
from Redis (half a lease at most, so it cannot have lapsed), then it goes back, and every process's callers
compete for it again: a process that keeps calling cannot keep the cap from another.

If Redis cannot be reached, an attempt that needs a slot from it fails as a retryable `our_error` before anything
is sent: the retry loop backs off and tries again, and an outage longer than the retry budget costs the item, never
the shard. A limit is never exceeded because the guard went missing.

If Redis comes back empty, the cap is rebuilt from the live holders' next renewal (a second later);
the per-minute budgets start afresh, as for a new deployment: at most one minute's allowance more, once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import random
import socket
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from app.lease_timing import renew_every_s
from app.limits.gcra import GCRA_LUA, Pace, limits_key, wait_seconds
from app.limits.target_gate import TargetGate
from app.net.call_failed import CallFailed
from app.redis_connection import redis_from_url

# KEYS[1] holders (token -> lapse time, ms; a token is "<owner>/<number>"), KEYS[2] owners seen without a
# subscriber (owner -> since, ms), KEYS[3] the sweep's throttle, KEYS[4] owners waiting for slots (owner -> lapse
# time, ms); ARGV limit, lease ms, presence channel prefix, grace ms, sweep period ms, the asking owner, how long its
# wait counts (ms), then the tokens asking. Returns how many of them, from the first, now hold a slot.
# When the cap is full, at most once a sweep period: an owner with no subscriber on its presence channel, seen so
# for the grace, loses its tokens.
# Fair shares: while other owners wait, the asking owner gets slots only up to the cap over the owners waiting
# (itself included), counting what it holds. Without this, the owner that frees a slot asks for one again
# first (it knows the moment), and a process that keeps calling would keep the cap from one that waits.
HOLD_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, lease = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= limit and redis.call('SET', KEYS[3], 1, 'NX', 'PX', ARGV[5]) then
  local owners = {}
  for _, holder in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local owner = string.match(holder, '^(.*)/[^/]*$')
    if owner then
      owners[owner] = owners[owner] or {}
      table.insert(owners[owner], holder)
    end
  end
  for owner, held in pairs(owners) do
    if redis.call('PUBSUB', 'NUMSUB', ARGV[3] .. owner)[2] > 0 then
      redis.call('HDEL', KEYS[2], owner)
    else
      local since = tonumber(redis.call('HGET', KEYS[2], owner))
      if not since then
        redis.call('HSET', KEYS[2], owner, now)
      elseif now - since >= tonumber(ARGV[4]) then
        for _, holder in ipairs(held) do
          redis.call('ZREM', KEYS[1], holder)
        end
        redis.call('HDEL', KEYS[2], owner)
      end
    end
  end
  redis.call('PEXPIRE', KEYS[2], lease)
end
local asker, wants = ARGV[6], #ARGV - 7
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
local free = limit - redis.call('ZCARD', KEYS[1])
local others = redis.call('ZCARD', KEYS[4])
if redis.call('ZSCORE', KEYS[4], asker) then
  others = others - 1
end
if free > 0 and others > 0 then
  local prefix, mine = asker .. '/', 0
  for _, holder in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if string.sub(holder, 1, #prefix) == prefix then
      mine = mine + 1
    end
  end
  free = math.min(free, math.ceil(limit / (others + 1)) - mine)
end
local taken = math.max(0, math.min(free, wants))
for i = 8, 7 + taken do
  redis.call('ZADD', KEYS[1], now + lease, ARGV[i])
end
if taken > 0 and redis.call('PTTL', KEYS[1]) < lease then
  redis.call('PEXPIRE', KEYS[1], lease)
end
if taken < wants then
  redis.call('ZADD', KEYS[4], now + tonumber(ARGV[7]), asker)
  redis.call('PEXPIRE', KEYS[4], ARGV[7])
else
  redis.call('ZREM', KEYS[4], asker)
end
return taken
"""

# KEYS[1] holders; ARGV lease ms, then the tokens still held. Not XX: if Redis lost the set (a restart without
# persistence, a failover), the live holders put their tokens back, so the cap is rebuilt within one renewal
# and new holders wait for it again. The price: a token released during a renewal's flight stays for one
# lease (a slot idle a little longer, never one too many).
RENEW_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], now + lease, ARGV[i])
end
if redis.call('PTTL', KEYS[1]) < lease then
  redis.call('PEXPIRE', KEYS[1], lease)
end
return 0
"""

FIRST_POLL_S = 0.002
LAST_POLL_S = 0.05
# A process keeps a slot an attempt has finished with for the next attempt, with no round trip to Redis: at most
# REUSE_S after it took it from Redis, and idle for at most SETTLE_S.
REUSE_S = 1.0
SETTLE_S = 0.01
PERIOD_MS = 60_000
# An owner without a subscriber for this long is gone: well above the time a live process takes to subscribe
# again after its connection dropped (milliseconds while Redis is up), well below a lease.
PRESENCE_GRACE_S = 1.0
# An owner whose poll was not all granted counts as waiting this long: several of its polls (at most LAST_POLL_S
# apart), so it stays counted while it waits, and its share goes back to the others soon after it stops.
WAIT_COUNTS_S = 4 * LAST_POLL_S
# A poll asks for at most this many slots: at the start of a run the poller asks again at once while all are
# granted, and under contention a poll costs the same whether 10 or 256 callers wait.
MOST_ASKED = 32
SWEEP_PERIOD_S = 0.25  # how often a full cap is searched for owners that are gone (one script run, ~2 owners)
REDIS_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)


@dataclass(frozen=True)
class TargetKeys:
    slots: str
    absent: str
    swept: str
    waiting: str
    requests: str
    tokens: str


def process_owner() -> str:
    """Who holds a slot, as an operator would look for it: host, process, and a nonce for this client."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class RedisLimits:
    """One process's handle on the shared limits: a Redis client, the scripts registered on it, a namespace."""

    def __init__(self, redis: Redis, namespace: str) -> None:
        self.redis = redis
        self.namespace = namespace
        self.owner = process_owner()
        self._numbers = itertools.count()
        self._presence_prefix = limits_key(namespace, "presence") + ":"
        self._hold = redis.register_script(HOLD_LUA)
        self._renew = redis.register_script(RENEW_LUA)
        self._gcra = redis.register_script(GCRA_LUA)
        self._background: set[asyncio.Task[None]] = set()
        self._releasing: dict[str, list[str]] = {}  # key -> tokens to release in the next ZREM
        self._closed = False
        self._present = asyncio.Event()
        self._subscribing = asyncio.Lock()
        self._pubsub: PubSub | None = None
        self._presence: asyncio.Task[None] | None = None

    @classmethod
    def from_url(cls, url: str, namespace: str) -> RedisLimits:
        """A client that fails within seconds when Redis is gone, instead of hanging an attempt forever.

        A pooled connection a Redis restart dropped is replaced and the command sent again (twice at most).
        """
        redis = redis_from_url(
            url,
            socket_connect_timeout=2.0,
            socket_timeout=5.0,
            retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), retries=2),
            retry_on_error=[RedisConnectionError],
        )
        return cls(redis, namespace)

    def keys(self, target_id: str) -> TargetKeys:
        """The keys of one target, under the deployment's queue name so deployments never share limits."""
        return TargetKeys(
            slots=limits_key(self.namespace, target_id, "slots"),
            absent=limits_key(self.namespace, target_id, "absent"),
            swept=limits_key(self.namespace, target_id, "swept"),
            waiting=limits_key(self.namespace, target_id, "waiting"),
            requests=limits_key(self.namespace, target_id, "rpm"),
            tokens=limits_key(self.namespace, target_id, "tpm"),
        )

    def new_token(self) -> str:
        """A slot's token: its owner, "/", a number this client never gives again (the owner is unique to the
        client). A token without "/" (no presence) only ever lapses."""
        return f"{self.owner}/{next(self._numbers)}"

    async def present(self) -> None:
        """Return once this process is subscribed to its presence channel; raise if Redis refuses it now."""
        if not self._present.is_set():
            await self._subscribe()
        if self._presence is None or self._presence.done():
            self._presence = asyncio.create_task(self._stay_present())

    async def _subscribe(self) -> None:
        async with self._subscribing:  # one subscription per process, however many callers ask at once
            if self._present.is_set():
                return
            if self._pubsub is None:
                self._pubsub = self.redis.pubsub()
            try:
                await self._pubsub.subscribe(self._presence_prefix + self.owner)
            except BaseException:
                await self._drop_subscription()
                raise
            self._present.set()

    async def _drop_subscription(self) -> None:
        self._present.clear()
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(*REDIS_ERRORS):
                await pubsub.aclose()  # gives a broken connection up; the next subscription makes a new one

    async def _stay_present(self) -> None:
        """Keep the subscription for the process's life, making it again (with backoff) when it drops; while
        it is down the process takes no slot, and the grace keeps the slots it holds from being freed."""
        delay = FIRST_POLL_S
        while True:
            try:
                await self._subscribe()
                if (pubsub := self._pubsub) is not None:  # None only if a failed subscribe just dropped it
                    await pubsub.get_message(timeout=1.0)  # a closed connection raises here
                delay = FIRST_POLL_S
            except REDIS_ERRORS:
                await self._drop_subscription()
                await asyncio.sleep(random.uniform(delay / 2, delay))
                delay = min(delay * 4, 0.5)

    async def try_hold(self, keys: TargetKeys, tokens: list[str], limit: int, lease_ms: int) -> int:
        """Take free slots of `limit` for as many of `tokens` as fit and this owner's fair share allows, in order
        (lapsed and departed holders dropped first); how many of them, from the first, now hold one. If not all,
        this owner counts as waiting for WAIT_COUNTS_S."""
        args = [
            limit,
            lease_ms,
            self._presence_prefix,
            int(PRESENCE_GRACE_S * 1000),
            int(SWEEP_PERIOD_S * 1000),
            self.owner,
            int(WAIT_COUNTS_S * 1000),
            *tokens,
        ]
        return int(await self._hold(keys=[keys.slots, keys.absent, keys.swept, keys.waiting], args=args))

    async def renew(self, key: str, tokens: list[str], lease_ms: int) -> None:
        await self._renew(keys=[key], args=[lease_ms, *tokens])

    async def release(self, key: str, *tokens: str) -> None:
        await self.redis.zrem(key, *tokens)

    def release_soon(self, key: str, token: str) -> None:
        """Release from a task of its own, for a caller being cancelled (it may not await again). Once the client
        is closed (the process is stopping), nothing: the slot lapses, or the sweep frees it, as the process's
        presence ended with the close.

        Tokens released in the same turn of the event loop go in one ZREM: a wave of replies frees many slots at
        once, and one task and round trip each was ~3% of a worker's CPU per call at C = 256 (py-spy)."""
        if self._closed:
            return
        pending = self._releasing.setdefault(key, [])
        pending.append(token)
        if len(pending) == 1:
            task = asyncio.ensure_future(self._release_quietly(key))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _release_quietly(self, key: str) -> None:
        await asyncio.sleep(0)  # the tokens the rest of this turn frees go in the same ZREM
        tokens = self._releasing.pop(key, [])
        with contextlib.suppress(*REDIS_ERRORS):  # unreleased, the tokens lapse after their lease
            await self.release(key, *tokens)

    async def take(self, key: str, amount: int, cost: float) -> float:
        """Spend `cost` of a per-minute budget of `amount`; 0 if granted, else seconds until it could be."""
        return wait_seconds(await self._gcra(keys=[key], args=Pace.per_period(amount, PERIOD_MS).args(cost)))

    async def aclose(self) -> None:
        self._closed = True
        for task in list(self._background):
            with contextlib.suppress(Exception):
                await task
        if self._presence is not None:
            self._presence.cancel()
            with contextlib.suppress(asyncio.CancelledError, *REDIS_ERRORS):
                await self._presence
        await self._drop_subscription()
        await self.redis.aclose()


def _handed_a_slot(handed: asyncio.Future[str]) -> bool:
    """Whether a waiting caller was given a slot's token (`_give_back` takes it off the queue as it gives one)."""
    return handed.done() and not handed.cancelled() and handed.exception() is None


def unreachable(exc: BaseException) -> CallFailed:
    """Redis trouble as a failed attempt: retryable, and ours, since the target was never called."""
    return CallFailed("our_error", f"shared limits unavailable: {type(exc).__name__}: {exc}", retryable=True)


class SharedTargetGate(TargetGate):
    """A TargetGate whose cap and budgets hold across processes; the local AIMD window stays in front.

    The window is per process and reacts to this process's 429s; a caller asks Redis only once it has a window
    place, so one process never asks for more slots than its own window.
    """

    def __init__(
        self,
        limits: RedisLimits,
        target_id: str,
        max_concurrency: int,
        requests_per_minute: int | None = None,
        tokens_per_minute: int | None = None,
        *,
        lease_s: float,
    ) -> None:
        super().__init__(max_concurrency)  # the window only: the per-minute budgets live in Redis
        self._limits = limits
        self._keys = limits.keys(target_id)
        self._slots = max(1, max_concurrency)
        self._requests_pm = requests_per_minute or 0
        self._tokens_pm = tokens_per_minute or 0
        self._lease_s = lease_s
        self._lease_ms = max(1, int(lease_s * 1000))
        self._held: set[str] = set()  # in use or idle: renewed until released
        self._renewer: asyncio.Task[None] | None = None
        self._taken_at: dict[str, float] = {}
        self._idle: list[str] = []
        self._waiting: deque[asyncio.Future[str]] = deque()  # callers waiting for a slot, first come first
        self._poller: asyncio.Task[None] | None = None
        self._settler: asyncio.TimerHandle | None = None
        # A slot goes back to Redis once it has been ours this long: half a lease at most, so it never serves an
        # attempt after it could have lapsed unrenewed, and soon enough that other processes' callers get their turn.
        self._reuse_s = min(REUSE_S, lease_s / 2)

    @asynccontextmanager
    async def slot(self, estimated_tokens: int = 0) -> AsyncIterator[None]:
        """Hold one slot for one attempt, after the shared budgets allow it."""
        try:
            if self._requests_pm:
                await self._spend(self._keys.requests, self._requests_pm, 1)
            if self._tokens_pm and estimated_tokens > 0:
                await self._spend(self._keys.tokens, self._tokens_pm, min(estimated_tokens, self._tokens_pm))
        except REDIS_ERRORS as exc:
            raise unreachable(exc) from exc
        await self.window.acquire()
        try:
            token = self._reuse() or await self._hold()
        except BaseException:
            self.window.release()
            raise
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.create_task(self._renew_while_held())
        try:
            yield
        finally:
            self._give_back(token)
            self.window.release()

    async def _spend(self, key: str, amount: int, cost: float) -> None:
        while wait := await self._limits.take(key, amount, cost):
            await asyncio.sleep(wait + random.uniform(0, FIRST_POLL_S * 5))  # jitter: waiters wake apart

    def _fresh(self, token: str) -> bool:
        """Young enough to be used again without asking Redis (see `reuse_s`)."""
        return time.monotonic() - self._taken_at.get(token, 0.0) < self._reuse_s

    def _reuse(self) -> str | None:
        """A slot this process holds and no attempt uses, if one is still fresh; stale ones go back to Redis."""
        while self._idle:
            token = self._idle.pop()
            if self._fresh(token):
                return token
            self._release(token)
        return None

    def _give_back(self, token: str) -> None:
        """An attempt is done with its slot: to a caller of ours waiting for one, kept idle for the next, or,
        once it has been ours for `reuse_s`, back to Redis, where every process's callers compete for it."""
        if not self._fresh(token):
            self._release(token)
            return
        while self._waiting:
            handed = self._waiting.popleft()
            if not handed.done():
                handed.set_result(token)
                return
        self._idle.append(token)
        if self._settler is None:
            self._settler = asyncio.get_running_loop().call_later(SETTLE_S, self._settle)

    def _settle(self) -> None:
        """Idle slots no attempt took within SETTLE_S go back to Redis, for the other processes."""
        self._settler = None
        idle, self._idle = self._idle, []
        for token in idle:
            self._release(token)

    def _release(self, token: str) -> None:
        # Given back from a task of its own: the caller goes on to its next item at once instead of waiting for a
        # round trip behind the loop's other work (a wave of replies holds the loop for tens of ms at C = 256).
        self._held.discard(token)
        self._taken_at.pop(token, None)
        self._limits.release_soon(self._keys.slots, token)

    async def _hold(self) -> str:
        """Wait for a slot: from this process's poller, or from an attempt of this process handing its slot over."""
        handed: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._waiting.append(handed)
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._poll())
        try:
            return await handed
        except asyncio.CancelledError:
            self._return_handed(handed)
            raise
        finally:
            # One handed a slot was taken off the queue by whoever handed it; looking for it there would read
            # every caller still waiting, at every hand-over.
            if not _handed_a_slot(handed):
                with contextlib.suppress(ValueError):
                    self._waiting.remove(handed)

    async def _poll(self) -> None:
        """While callers of this process wait, ask Redis for slots for them (up to MOST_ASKED) in one script run,
        backing off from a few ms to LAST_POLL_S with jitter; slots taken go to the waiting callers, first come
        first. Redis grants at most this process's fair share while other processes wait (see HOLD_LUA).

        Why polling: a freed slot can come from a release or from a dead holder's lapse, which sends no signal;
        a poll sees both without a second notification key. Why one poller per process, not one per caller: a
        process's callers beyond the cap (up to its window) would each run the script every LAST_POLL_S, ~5,000
        runs a second for 256 callers, and two workers at C = 256 spent a quarter of their CPU doing it.
        """
        delay = FIRST_POLL_S
        while waiting := [f for f in self._waiting if not f.done()]:
            tokens = [self._limits.new_token() for _ in waiting[:MOST_ASKED]]
            try:
                await self._limits.present()
                taken = await self._limits.try_hold(self._keys, tokens, self._slots, self._lease_ms)
            except REDIS_ERRORS as exc:
                for caller in waiting:
                    if not caller.done():
                        caller.set_exception(unreachable(exc))
                return
            except asyncio.CancelledError:
                for token in tokens:  # the script may have run before we left
                    self._limits.release_soon(self._keys.slots, token)
                for caller in waiting:
                    caller.cancel()
                raise
            now = time.monotonic()
            for token in tokens[:taken]:
                self._held.add(token)
                self._taken_at[token] = now
                self._give_back(token)  # to the first caller still waiting; idle if none is left
            if taken == len(tokens):  # every caller served: ask again only for those who came meanwhile
                delay = FIRST_POLL_S
                continue
            # The cap is full. Neither a slot handed over by an attempt of ours nor a caller arriving says Redis
            # has one free, so neither wakes the poller: it sleeps its backoff, as another process's does.
            delay = FIRST_POLL_S if taken else delay
            await asyncio.sleep(random.uniform(delay / 2, delay))
            delay = min(delay * 2, LAST_POLL_S)

    def _return_handed(self, handed: asyncio.Future[str]) -> None:
        if _handed_a_slot(handed):
            self._give_back(handed.result())
        else:
            handed.cancel()

    async def _renew_while_held(self) -> None:
        """Keep this process's holders from lapsing, a renewal every second; ends when none is held."""
        while self._held:
            await asyncio.sleep(renew_every_s(self._lease_s))
            if self._held:
                with contextlib.suppress(*REDIS_ERRORS):  # the next try, or the lease, settles it
                    await self._limits.renew(self._keys.slots, sorted(self._held), self._lease_ms)
