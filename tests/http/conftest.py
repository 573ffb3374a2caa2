"""The API fixtures of tests/security (an app on a temp var dir, teams with keys), for the HTTP edge's tests."""

from tests.security.conftest import client, team_a  # noqa: F401  (fixtures)
