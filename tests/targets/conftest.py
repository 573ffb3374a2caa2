"""Adapters under test call a plain httpx client that respx intercepts; retries are fast."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from app.targets.retry import RetryPolicy


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as c:
        yield c


@pytest.fixture
def fast_policy() -> RetryPolicy:
    return RetryPolicy(max_retries=3, budget_s=10.0, base_delay_s=0.01, max_delay_s=0.05)
