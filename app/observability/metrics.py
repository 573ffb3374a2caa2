"""The Prometheus metrics the runner records; one definition each, on the default registry.

The API serves them at /metrics; a `helmbench worker` serves its own on --metrics-port, because each process
counts only what it ran (scrape every worker and sum, the Prometheus way).
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

ITEMS = Counter(
    "helmbench_items_total",
    "Items written, by target and outcome (ok or final error class).",
    ["target", "outcome"],
)
ATTEMPTS = Counter(
    "helmbench_target_attempts_total",
    "Calls made to a target, by outcome of the attempt.",
    ["target", "outcome"],
)
RETRIES = Counter("helmbench_target_retries_total", "Attempts beyond the first, by target.", ["target"])
LATENCY = Histogram(
    "helmbench_target_request_seconds",
    "Time of one successful call to a target.",
    ["target"],
    buckets=(0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 2, 5, 10, 30, 60),
)
WINDOW = Gauge(
    "helmbench_target_concurrency_limit", "Current adaptive concurrency window per target.", ["target"]
)
IN_FLIGHT = Gauge("helmbench_target_in_flight", "Calls to a target in flight in this process.", ["target"])
SHARDS_RUNNING = Gauge("helmbench_shards_running", "Shards running in this process.")
QUEUE_DEPTH = Gauge("helmbench_queue_depth", "Shard jobs queued or running, as the queue reports them.")
