"""Migrations build, on an empty database of each kind, exactly the schema the models describe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, create_engine, inspect, text
from sqlmodel import Session, SQLModel

import app.store.models  # noqa: F401
from app.config import Settings
from app.store import evaluations as ev_store
from app.store import tallies
from app.store.migrate import alembic_config, upgrade


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    """An empty database of each kind, for a migration's way up and back."""
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    return Settings(var_dir=tmp_path, database_url=url)


def _diff(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, SQLModel.metadata))
    finally:
        engine.dispose()


def test_sqlite_migrations_match_models(tmp_path: Path) -> None:
    settings = Settings(var_dir=tmp_path, database_url=None)
    upgrade(settings)
    assert _diff(settings.sqlalchemy_url) == []
    tables = set(inspect(create_engine(settings.sqlalchemy_url)).get_table_names())
    assert {"team", "apikey", "target", "evaluation", "evaluation_item"} <= tables


def test_upgrade_twice_is_harmless(tmp_path: Path) -> None:
    settings = Settings(var_dir=tmp_path, database_url=None)
    upgrade(settings)
    upgrade(settings)
    assert _diff(settings.sqlalchemy_url) == []


def test_0007_adds_the_panel_and_rules_columns_to_existing_items_and_goes_back(tmp_path: Path) -> None:
    """Items written before 0007 keep their rows and read null in the new columns; a downgrade drops only those."""
    settings = Settings(var_dir=tmp_path, database_url=None)
    upgrade(settings, "0006")
    engine = create_engine(settings.sqlalchemy_url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO evaluation_item (evaluation_id, key, idx, scenario_id, condition_id, perturbation_id, "
                "repeat, messages, attempts, checks, reasons, created_at) VALUES ('ev_1', 'k1', 0, 'S', 'S-C1', "
                "'S-PT1', 0, '[]', 1, '{}', '[]', '2026-01-01 00:00:00')"
            )
        )
    upgrade(settings)
    with engine.connect() as conn:
        row = conn.execute(text("SELECT key, panel_scores, rules_score, likert FROM evaluation_item")).one()
    assert tuple(row) == ("k1", None, None, None)
    command.downgrade(alembic_config(settings), "0006")
    columns = {c["name"] for c in inspect(engine).get_columns("evaluation_item")}
    assert not {"panel_scores", "rules_score", "likert"} & columns and "judge" in columns
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM evaluation_item")).scalar() == 1
    engine.dispose()


@pytest.mark.postgres
def test_postgres_migrations_match_models(postgres_url: str, tmp_path: Path) -> None:
    settings = Settings(var_dir=tmp_path, database_url=postgres_url)
    assert settings.sqlalchemy_url.startswith("postgresql+psycopg://")
    upgrade(settings)
    assert _diff(settings.sqlalchemy_url) == []


def test_0012_schedules_and_regressions_go_back_and_forth(
    settings: Settings,
) -> None:
    """Down to 0008 drops the schedule tables and the evaluation's tick columns; up again rebuilds them."""
    upgrade(settings)
    engine = create_engine(settings.sqlalchemy_url)
    command.downgrade(alembic_config(settings), "0008")
    assert not {"schedule", "regression"} & set(inspect(engine).get_table_names())
    columns = {c["name"] for c in inspect(engine).get_columns("evaluation")}
    assert not {"schedule_id", "scheduled_for", "baseline_evaluation_id"} & columns and "stalled" in columns
    engine.dispose()
    upgrade(settings)
    assert _diff(settings.sqlalchemy_url) == []


def _team_and_target(conn: Connection, *, versioned: bool = False) -> None:
    """Team t1 and its target tgt_1; `versioned`: at a revision whose targets have versions (0010 on)."""
    conn.execute(
        text("INSERT INTO team (id, name, created_at, platform) VALUES ('t1', 'lab', :at, false)"),
        {"at": "2026-01-01 00:00:00"},
    )
    version = (", version", ", 1") if versioned else ("", "")
    conn.execute(
        text(
            "INSERT INTO target (id, team_id, name, kind, base_url, model, api_key_secret, params, "
            f"max_concurrency, created_at{version[0]}) VALUES ('tgt_1', 't1', 'bot', 'openai_chat', 'http://h/v1', "
            f"'m-1', 'sealed-key', '{{\"top_p\": 0.5}}', 4, '2026-01-01 00:00:00'{version[1]})"
        )
    )


def _backfill_0010(settings: Settings) -> None:
    """Targets and evaluations from before 0010 become version 1 and ran against it; a downgrade goes back."""
    upgrade(settings, "0008")
    engine = create_engine(settings.sqlalchemy_url)
    with engine.begin() as conn:
        _team_and_target(conn)
        conn.execute(
            text(
                "INSERT INTO evaluation (id, team_id, target_id, target_name, model, suite, repeats, visibility, "
                "share_transcripts, status, benchmark_version, total, shards, created_at, progress_done) VALUES "
                "('ev_1', 't1', 'tgt_1', 'bot', 'm-1', 'quick', 1, 'private', false, 'succeeded', 'hb-1', 2, 1, "
                "'2026-01-01 00:00:00', 2)"
            )
        )
    upgrade(settings)
    with engine.connect() as conn:
        version = conn.execute(text("SELECT target_id, version, config FROM target_version")).one()
        assert conn.execute(text("SELECT version FROM target")).scalar() == 1
        assert conn.execute(text("SELECT target_version, plan FROM evaluation")).one() == (1, None)
    config = version[2] if isinstance(version[2], dict) else json.loads(version[2])
    assert version[:2] == ("tgt_1", 1)
    assert config["model"] == "m-1" and config["params"] == {"top_p": 0.5}
    assert config["api_key_secret"] == "sealed-key"  # still sealed, as on the target
    command.downgrade(alembic_config(settings), "0008")
    assert "target_version" not in inspect(engine).get_table_names()
    assert "target_version" not in {c["name"] for c in inspect(engine).get_columns("evaluation")}
    engine.dispose()


def test_0010_backfills_version_1_on_sqlite(tmp_path: Path) -> None:
    _backfill_0010(Settings(var_dir=tmp_path, database_url=None))


@pytest.mark.postgres
def test_0010_backfills_version_1_on_postgres(postgres_url: str, tmp_path: Path) -> None:
    _backfill_0010(Settings(var_dir=tmp_path, database_url=postgres_url))


def _item(evaluation_id: str, key: str, scenario: str, condition: str, perturbation: str) -> dict[str, str]:
    return {"ev": evaluation_id, "key": key, "s": scenario, "c": condition, "p": perturbation}


def test_0022_stores_each_item_kind_backfilled_by_the_old_rule_and_goes_back(
    settings: Settings,
) -> None:
    """Rows from before 0022 take the kind their placeholder ids or their evaluation's suite said; a downgrade
    drops only the column."""
    upgrade(settings, "0021")
    engine = create_engine(settings.sqlalchemy_url)
    evaluation = (
        "INSERT INTO evaluation (id, team_id, target_id, target_name, model, suite, repeats, visibility, "
        "share_transcripts, status, benchmark_version, total, shards, created_at, progress_done, target_version) "
        "VALUES (:id, 't1', 'tgt_1', 'bot', 'm-1', :suite, 1, 'private', false, 'succeeded', 'hb-1', 1, 1, "
        "'2026-01-01 00:00:00', 1, 1)"
    )
    item = (
        "INSERT INTO evaluation_item (evaluation_id, key, idx, scenario_id, condition_id, perturbation_id, "
        "repeat, messages, attempts, checks, reasons, created_at) VALUES (:ev, :key, 0, :s, :c, :p, 0, '[]', 1, "
        "'{}', '[]', '2026-01-01 00:00:00')"
    )
    with engine.begin() as conn:
        _team_and_target(conn, versioned=True)
        suites = {"ev_m": "quick", "ev_c": "conversations", "ev_s": "simulated", "ev_l": "classification"}
        for evaluation_id, suite in suites.items():
            conn.execute(text(evaluation), {"id": evaluation_id, "suite": suite})
        for row in (
            _item("ev_m", "k_m", "P1-B1-S1", "P1-B1-S1-C1", "P1-B1-S1-PT1"),
            _item("ev_c", "k_c", "CONV", "CONV-plain_assistant", "CONV-some_script"),
            _item("ev_s", "k_s", "SIM", "SIM-plain_assistant", "SIM-001"),
            _item("ev_l", "k_l", "P1-B1-S1", "P1-B1-S1-C1", "P1-B1-S1-PT1"),
        ):
            conn.execute(text(item), row)
    upgrade(settings)
    with engine.connect() as conn:
        kinds = dict(conn.execute(text("SELECT key, item_kind FROM evaluation_item")).all())
    assert kinds == {"k_m": "matrix", "k_c": "conversations", "k_s": "simulated", "k_l": "classification"}
    assert _diff(settings.sqlalchemy_url) == []
    command.downgrade(alembic_config(settings), "0021")
    columns = {c["name"] for c in inspect(engine).get_columns("evaluation_item")}
    assert "item_kind" not in columns and "perturbation_id" in columns
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM evaluation_item")).scalar() == 4
    engine.dispose()


LZ4 = text("SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")


@pytest.mark.postgres
def test_0023_compresses_transcripts_with_lz4_on_postgres_and_goes_back(
    postgres_url: str, tmp_path: Path
) -> None:
    """Every text and JSON column of the item, batch-line and evaluation tables; the other tables as they were."""
    settings = Settings(var_dir=tmp_path, database_url=postgres_url)
    upgrade(settings)
    engine = create_engine(settings.sqlalchemy_url)
    compression = text(
        "SELECT c.relname, a.attname, a.attcompression FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
        " WHERE c.relname IN ('evaluation_item', 'grade_batch_line', 'evaluation', 'target')"
        " AND a.atttypid IN ('json'::regtype, 'text'::regtype) AND a.attnum > 0"
    )
    with engine.connect() as conn:
        lz4 = conn.execute(LZ4).scalar()  # a server built without it keeps pglz (CI's has it)
        methods = {(table, column): method for table, column, method in conn.execute(compression)}
    expected = "l" if lz4 else ""
    assert methods[("evaluation_item", "messages")] == methods[("grade_batch_line", "transcript")] == expected
    assert {m for (table, _), m in methods.items() if table != "target"} == {expected}
    assert {m for (table, _), m in methods.items() if table == "target"} == {""}
    command.downgrade(alembic_config(settings), "0022")
    with engine.connect() as conn:
        assert {m for *_, m in conn.execute(compression)} == {""}
    upgrade(settings)  # nothing else was taken back on the way down
    assert _diff(settings.sqlalchemy_url) == []
    engine.dispose()


def test_0024_counts_items_already_stored_into_tallies_and_goes_back(
    settings: Settings,
) -> None:
    """A run stored before 0024 shows the same progress after it as a count of its items gives."""
    upgrade(settings, "0023")
    engine = create_engine(settings.sqlalchemy_url)
    item = (
        "INSERT INTO evaluation_item (evaluation_id, key, idx, scenario_id, condition_id, perturbation_id, "
        "repeat, messages, attempts, checks, reasons, created_at, verdict, error_class) VALUES ('ev_1', :key, "
        ":idx, 's', 'c', 'p', 0, '[]', :attempts, '{}', '[]', '2026-01-01 00:00:00', :verdict, :error)"
    )
    rows = [  # across two stretches of 500, graded and not, with errors of two classes and retries
        (0, "PASS", None, 1),
        (1, "FAIL", None, 3),
        (2, None, "timeout", 4),
        (499, "PARTIAL", None, 1),
        (500, "PASS", None, 2),
        (501, None, "timeout", 1),
        (777, "UNGRADED", "bad_response", 1),
    ]
    with engine.begin() as conn:
        _team_and_target(conn, versioned=True)
        conn.execute(
            text(
                "INSERT INTO evaluation (id, team_id, target_id, target_name, model, suite, repeats, visibility, "
                "share_transcripts, status, benchmark_version, total, shards, created_at, progress_done, "
                "target_version) VALUES ('ev_1', 't1', 'tgt_1', 'bot', 'm-1', 'quick', 1, 'private', false, "
                "'running', 'hb-1', 900, 2, '2026-01-01 00:00:00', 0, 1)"
            )
        )
        for idx, verdict, error, attempts in rows:
            conn.execute(
                text(item),
                {"key": f"k{idx}", "idx": idx, "attempts": attempts, "verdict": verdict, "error": error},
            )
    upgrade(settings)
    with Session(engine) as session:
        counts = tallies.counts(session=session, evaluation_id="ev_1")
        assert (counts.written, counts.failed) == ev_store.progress(session=session, evaluation_id="ev_1")
    assert counts == tallies.Counts(
        written=7, failed=3, graded=4, passed=2, retries=6, errors_by_class={"timeout": 2, "bad_response": 1}
    )
    assert _diff(settings.sqlalchemy_url) == []
    command.downgrade(alembic_config(settings), "0023")
    assert "item_tally" not in inspect(engine).get_table_names()
    engine.dispose()
