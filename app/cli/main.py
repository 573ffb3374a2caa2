"""`helmbench`: serve, worker, db, keys, data, grade, gate, delete, the API client's commands, example target and
simulator; each one engine or API call."""

from __future__ import annotations

import typer

from app.cli.compare import compare
from app.cli.data import data_app
from app.cli.erase import delete_batch, delete_evaluation
from app.cli.gate import gate
from app.cli.grade import grade
from app.cli.keys import keys_app
from app.cli.listing import evaluations_app, leaderboard, targets_app
from app.cli.report import export, report
from app.cli.secrets import secrets_app
from app.cli.submit import submit
from app.cli.watch import watch
from app.config import Settings

app = typer.Typer(
    help="HELMbench: evaluate the mental-health safety of LLM endpoints.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
db_app = typer.Typer(help="Database migrations.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(keys_app, name="keys")
app.add_typer(secrets_app, name="secrets")
app.add_typer(data_app, name="data")
app.add_typer(evaluations_app, name="evaluations")
app.add_typer(targets_app, name="targets")
for _command in (submit, watch, report, compare, export, leaderboard):
    app.command()(_command)  # through app.client: helmbench submit/watch/report/compare/export/leaderboard
app.command("grade")(grade)
app.command("gate")(gate)
app.command("delete-evaluation")(delete_evaluation)
app.command("delete-batch")(delete_batch)


@app.command()
def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve the API; with no Redis configured, also a local worker process that runs the jobs (SQLite)."""
    import uvicorn

    from app.http.head_timeout import head_timeout_protocol
    from app.main import create_app
    from app.observability.logging import configure_logging
    from app.runner.runtime import freeze_startup_heap

    settings = Settings()
    configure_logging(settings.log_level)
    freeze_startup_heap()
    # Slow clients: a trickled head is cut by the protocol, a trickled body by BodyLimitMiddleware (408).
    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        log_level="info",
        # A line per request costs the event loop about a sixth of its time under a crowd of pollers: it follows
        # HELMBENCH_LOG_LEVEL (on at info and debug, the default), while startup lines always show.
        access_log=settings.log_level.lower() in ("debug", "info"),
        timeout_keep_alive=settings.keep_alive_timeout_s,
        # SIGTERM: open connections (a live-progress stream) get this long, then the local worker (or in-process
        # runs) stop the same way a worker's do (app/workers/local.py, app/queue/inprocess.py).
        timeout_graceful_shutdown=max(1, int(settings.stop_grace_s)),
        http=head_timeout_protocol(settings.head_timeout_s),
    )


@app.command()
def worker(
    metrics_port: int | None = typer.Option(
        None, help="Serve Prometheus metrics on this port (HELMBENCH_WORKER_METRICS_PORT)."
    ),
) -> None:
    """Run an arq worker that executes evaluation shards from Redis."""
    import uvloop

    from app.runner.runtime import freeze_startup_heap
    from app.workers.settings import make_worker

    uvloop.install()  # ~20% less CPU per item at C=256 (bench/runner_e2e.py); arq runs on this loop

    settings = Settings()
    if metrics_port is not None:
        settings = settings.model_copy(update={"worker_metrics_port": metrics_port})
    try:
        worker = make_worker(settings)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    freeze_startup_heap()
    worker.run()


@db_app.command("upgrade")
def db_upgrade(revision: str = "head") -> None:
    """Apply migrations to HELMBENCH_DATABASE_URL (or the SQLite file in the var dir)."""
    from app.store.migrate import upgrade

    upgrade(Settings(), revision)
    typer.echo(f"database at {revision}")


@app.command("example-target")
def example_target(host: str = "127.0.0.1", port: int = 9100) -> None:
    """Serve a rule-based TOY chat bot (OpenAI-compatible) so the walkthrough works offline."""
    import uvicorn

    from app.example_target import create_example_target

    uvicorn.run(create_example_target(), host=host, port=port, log_level="warning")


@app.command("example-simulator")
def example_simulator(
    host: str = "127.0.0.1",
    port: int = 9200,
    never_stop: bool = typer.Option(
        False, help="Never send the stop token: every conversation runs to the cap."
    ),
) -> None:
    """Serve a rule-based TOY simulated user (OpenAI-compatible) that plays a persona card, for offline runs."""
    import uvicorn

    from app.example_simulator import create_example_simulator

    uvicorn.run(create_example_simulator(never_stop), host=host, port=port, log_level="warning")


if __name__ == "__main__":  # pragma: no cover
    app()
