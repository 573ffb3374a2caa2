"""A TCP forwarder in front of Redis that a test can cut and restore, like a partition or a Redis restart.

Thread-based, so sync tests (API replicas under TestClient) and async tests (the runner's gate) share it."""

from __future__ import annotations

import contextlib
import socket
import threading

import httpx

from bench.ports import free_port


class CuttableRedis:
    """A TCP forwarder in front of Redis that a test can cut and restore, like a partition or a restart."""

    def __init__(self, redis_url: str) -> None:
        url = httpx.URL(redis_url)
        self.upstream = (url.host, url.port or 6379)
        self.db = url.path
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}{self.db}"

    def start(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port))
        listener.settimeout(0.05)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Refuse new connections and reset the open ones."""
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while self._listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection(self.upstream)
            with self._lock:
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
