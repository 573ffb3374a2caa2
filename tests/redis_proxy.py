"""The cuttable forwarder in front of Redis, as the runner-gate and API-rate tests import it (bench/tcp_proxy.py)."""

from bench.tcp_proxy import CuttableRedis

__all__ = ["CuttableRedis"]
