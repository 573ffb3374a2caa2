"""GET /metrics: Prometheus text format for this process (runner, targets, queue depth)."""

from __future__ import annotations

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.deps import QueueDep
from app.observability import metrics

router = APIRouter(tags=["public"])


@router.get("/metrics", include_in_schema=False)
async def get_metrics(queue: QueueDep) -> Response:
    """Unauthenticated like /healthz: counts and target ids only, never content; firewall it if need be."""
    metrics.QUEUE_DEPTH.set(await queue.depth())
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
