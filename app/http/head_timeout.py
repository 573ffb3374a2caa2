"""uvicorn has no timeout for a request head that trickles in (slowloris); this h11 protocol adds one."""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class HeadTimeoutH11Protocol(H11Protocol):
    """Closes a connection whose request line and headers have not all arrived head_timeout_s after it opened
    (or after its last response); bodies are bounded separately by BodyLimitMiddleware."""

    head_timeout_s: float = 10.0
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm_head_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        super().connection_lost(exc)

    def _arm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

    def _head_timed_out(self) -> None:
        """h11 stays IDLE until a whole request head is parsed: still IDLE now means it is late (or idle)."""
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def head_timeout_protocol(seconds: float) -> type[HeadTimeoutH11Protocol]:
    """The protocol class for uvicorn's `http=` option, with this head timeout."""
    return type("HeadTimeoutH11Protocol", (HeadTimeoutH11Protocol,), {"head_timeout_s": seconds})
