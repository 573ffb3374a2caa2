"""The API fixtures of tests/security: the default app (loopback allowed), the production default (an empty
allowlist), a team with keys; for URL refusals and admissions at registration."""

from tests.security.conftest import client, strict_client, team_a  # noqa: F401  (fixtures)
