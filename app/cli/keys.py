"""`helmbench keys`: create, list and revoke API keys straight in the database (the operator's path)."""

from __future__ import annotations

import json

import typer
from sqlmodel import Session

from app.cli.connect import one_line_errors
from app.config import Settings
from app.errors import Invalid, NotFound
from app.store import keys as key_store
from app.store.models import Team
from app.store.roles import ROLES

keys_app = typer.Typer(help="API keys: create, list, revoke.", no_args_is_help=True)

USAGE = 2  # a team, key or role that does not exist is a usage error, as typer exits on a bad option
TEAM_HELP = "Team id or name (default: the platform team). A new name creates the team."


def _session() -> Session:
    """A session on the configured database; the embedded default's SQLite is migrated first."""
    from app.store.db import make_engine
    from app.store.migrate import upgrade

    settings = Settings()
    if settings.database_url is None:
        upgrade(settings)
    return Session(make_engine(settings))


def _team(session: Session, ref: str | None, *, create: bool) -> Team:
    if ref is None:
        return key_store.get_or_create_default_team(session=session)
    team = key_store.find_team(session=session, ref=ref)
    if team is None and create:
        team = key_store.create_team(session=session, name=ref)
    if team is None:
        raise NotFound("--team", f"no team {ref!r}")
    return team


@keys_app.command("create")
def keys_create(
    name: str = typer.Option("cli", help="A label for the key."),
    role: str = typer.Option("member", help="admin, member or read-only."),
    team: str | None = typer.Option(None, "--team", help=TEAM_HELP),
) -> None:
    """Create an API key and print it once (JSON)."""
    with one_line_errors(USAGE):
        if role not in ROLES:
            raise Invalid("--role", f"--role must be one of {', '.join(ROLES)}")
        with _session() as session:
            owner = _team(session, team, create=True)
            key, raw = key_store.create_key(session=session, team_id=owner.id, name=name, role=role)
            session.commit()
            shown = {"id": key.id, "team_id": owner.id, "team": owner.name, "role": role, "key": raw}
            typer.echo(json.dumps(shown))


@keys_app.command("list")
def keys_list(
    team: str | None = typer.Option(None, "--team", help=TEAM_HELP),
    all_keys: bool = typer.Option(False, "--all", help="Include revoked keys."),
) -> None:
    """List a team's keys by prefix (the keys themselves are never stored)."""
    with one_line_errors(USAGE), _session() as session:
        owner = _team(session, team, create=False)
        for key in key_store.list_keys(session=session, team_id=owner.id, include_revoked=all_keys):
            typer.echo(
                json.dumps(
                    {
                        "id": key.id,
                        "team_id": key.team_id,
                        "name": key.name,
                        "role": key.role,
                        "prefix": key.prefix,
                        "created_at": key.created_at.isoformat(),
                        "revoked_at": key.revoked_at.isoformat() if key.revoked_at else None,
                    }
                )
            )


@keys_app.command("revoke")
def keys_revoke(
    key_id: str = typer.Argument(..., help="The key's id (from `keys list`)."),
    team: str | None = typer.Option(None, "--team", help=TEAM_HELP),
) -> None:
    """Revoke a key at once; its next request gets 401."""
    with one_line_errors(USAGE), _session() as session:
        owner = _team(session, team, create=False)
        key = key_store.get_key(session=session, team_id=owner.id, key_id=key_id)
        if key is None:
            raise NotFound("key_id", f"team {owner.name!r} has no key {key_id!r}")
        key_store.revoke_key(session=session, key=key)
        session.commit()
        typer.echo(json.dumps({"id": key.id, "revoked": True}))
