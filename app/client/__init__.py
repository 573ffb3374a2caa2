"""A typed Python client for the HELMbench API, blocking or async, on one description of its operations."""

from app.client.aio import AsyncHelmbenchClient
from app.client.calls import ndjson
from app.client.errors import ApiError
from app.client.events import ProgressEvent
from app.client.sync import HelmbenchClient

__all__ = ["ApiError", "AsyncHelmbenchClient", "HelmbenchClient", "ProgressEvent", "ndjson"]
