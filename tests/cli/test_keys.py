"""`helmbench keys` refuses an unknown team, key or role in one line on stderr and exit code 2."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from app.cli.main import app
from app.config import Settings


def keys(settings: Settings, *args: str) -> tuple[int, str, str]:
    env = {"HELMBENCH_VAR_DIR": str(settings.var_dir), "HELMBENCH_DATA_DIR": str(settings.data_dir)}
    result = CliRunner().invoke(app, ["keys", *args], env=env)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_unknown_team_key_or_role_is_one_line_and_exit_2(settings: Settings) -> None:
    code, out, _ = keys(settings, "create", "--team", "lab", "--role", "member")
    assert code == 0 and json.loads(out)["team"] == "lab"
    for args, said in (
        (("list", "--team", "nope"), "error: no team 'nope' [--team]"),
        (("revoke", "k_missing", "--team", "lab"), "error: team 'lab' has no key 'k_missing' [key_id]"),
        (("create", "--role", "owner"), "error: --role must be one of admin, member, read-only [--role]"),
    ):
        code, out, err = keys(settings, *args)
        assert (code, out, err.strip()) == (2, "", said)
