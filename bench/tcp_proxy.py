"""A TCP forwarder that can be cut and restored: a partition, a restart or an outage of the service behind it.

Cut refuses new connections and resets the open ones (what clients see when a server dies or a network drops
its connections); restore listens again on the same port. Thread-based, so sync tests, async tests, the chaos
test and the chaos bench share it; the processes under test connect to it as if it were the service.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import httpx

from bench.ports import free_port


class CuttableProxy:
    """Forwards 127.0.0.1:`port` to `upstream`; `cut()` and `restore()` (or `start()`) at will."""

    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.upstream = (upstream_host, upstream_port)
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self.start()

    @property
    def cut_now(self) -> bool:
        return self._listener is None

    def start(self) -> None:
        deadline = time.monotonic() + 5
        while True:  # the port a cut just closed can take a moment to be free again
            try:
                listener = socket.create_server(("127.0.0.1", self.port))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        listener.settimeout(0.05)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    restore = start

    def cut(self) -> None:
        """Refuse new connections and reset the open ones."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # stop listening now, not when accept() next times out
            listener.close()
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def close(self) -> None:
        self.cut()

    def _accept(self, listener: socket.socket) -> None:
        while self._listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not listener:  # cut while connecting
                    client.close()
                    upstream.close()
                    return
                self._sockets += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


class CuttableRedis(CuttableProxy):
    """The proxy in front of a Redis URL; `url` keeps the db number."""

    def __init__(self, redis_url: str) -> None:
        url = httpx.URL(redis_url)
        self.db = url.path
        super().__init__(url.host, url.port or 6379)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}{self.db}"


class CuttablePostgres(CuttableProxy):
    """The proxy in front of a postgresql:// URL; `url` keeps the user, password and database."""

    def __init__(self, postgres_url: str) -> None:
        self._url = httpx.URL(postgres_url)
        super().__init__(self._url.host, self._url.port or 5432)

    @property
    def url(self) -> str:
        return str(self._url.copy_with(host="127.0.0.1", port=self.port))
