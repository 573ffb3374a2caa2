"""What every command that talks to a server shares: --url/--key, the one client, and one-line errors.

The server URL and key come from --url/--key or HELMBENCH_URL/HELMBENCH_KEY (through Settings). Any failure is
one line on stderr and exit code 1 (`helmbench gate` uses 2 for "could not decide").
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import click
import typer

from app.client import ApiError, HelmbenchClient
from app.config import Settings
from app.errors import DomainError, one_line

UrlOpt = Annotated[
    str | None, typer.Option("--url", help="Server URL (default: HELMBENCH_URL, else http://127.0.0.1:8000).")
]
KeyOpt = Annotated[
    str | None, typer.Option("--key", help="API key (default: HELMBENCH_KEY).", show_default=False)
]


class CliError(Exception):
    """One line for the user; the command exits 1."""


def connect(
    url: str | None, key: str | None, *, timeout: float = 30.0, need_key: bool = True
) -> HelmbenchClient:
    """The command's one client to the chosen server, closed when the command ends; refuses early without a key
    where the call needs one."""
    settings = Settings()
    key = key or settings.key
    if need_key and not key:
        raise CliError("no API key: pass --key or set HELMBENCH_KEY")
    client = HelmbenchClient(url or settings.url, key, timeout=timeout)
    context = click.get_current_context(silent=True)
    if context is not None:  # else (called as a function) the client closes its pool when dropped
        context.call_on_close(client.close)
    return client


@contextmanager
def one_line_errors(code: int = 1) -> Iterator[None]:
    """A CliError, an API refusal, or a domain error from a service the command ran in process, becomes one
    line on stderr and exit `code`."""
    try:
        yield
    except (CliError, ApiError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code) from None
    except DomainError as exc:
        typer.echo(f"error: {one_line(exc)}", err=True)
        raise typer.Exit(code) from None
