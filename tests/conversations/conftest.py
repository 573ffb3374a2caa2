"""Conversation tests call a real adapter over a plain httpx client that respx intercepts; retries are fast."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from app.targets.base import TargetAdapter, TargetConfig
from app.targets.factory import make_adapter
from app.targets.retry import RetryPolicy

URL = "https://bot.example.com/v1"


@pytest.fixture
async def adapter() -> AsyncIterator[TargetAdapter]:
    policy = RetryPolicy(max_retries=1, budget_s=5.0, base_delay_s=0.01, max_delay_s=0.02)
    async with httpx.AsyncClient() as client:
        yield make_adapter(client, TargetConfig(kind="openai_chat", base_url=URL, model="m"), policy, 100_000)
