"""`helmbench secrets rotate`: re-encrypt every stored secret with the first of HELMBENCH_SECRET_KEYS."""

from __future__ import annotations

import json

import typer

from app.config import Settings

secrets_app = typer.Typer(help="Secrets at rest.", no_args_is_help=True)


@secrets_app.command("rotate")
def secrets_rotate() -> None:
    """Re-encrypt stored secrets with the first key; afterwards the other keys may be removed."""
    from app.security.rotate import rotate_secrets
    from app.security.secrets import secret_box_for
    from app.store.db import make_engine

    settings = Settings()
    engine = make_engine(settings)
    try:
        counts = rotate_secrets(engine=engine, secrets=secret_box_for(settings))
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    finally:
        engine.dispose()
    typer.echo(json.dumps({"rotated": counts}))
