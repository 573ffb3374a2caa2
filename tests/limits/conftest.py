"""The adapter fixtures of tests/targets: a plain httpx client respx intercepts and fast retries, for the limits a
target call passes through."""

from tests.targets.conftest import client, fast_policy  # noqa: F401  (fixtures)
