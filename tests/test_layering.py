"""The package's layering, read from the source with ast: SQL lives only in app/store, and the engine imports
none of the edges, so a newcomer finds each concern in one place and the engine runs without a web server.
Comments and docstrings say why, never which ticket or review asked: that context is gone for the next reader."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"

# Outside app/store a module may hold a session or an engine, and catch the driver's errors, but builds no query.
SQL_PACKAGES = ("sqlalchemy", "sqlmodel")
HANDLES = {"Session", "Engine"}
ERROR_MODULES = ("sqlalchemy.exc",)

ENGINE = (
    "app/benchmark",
    "app/limits",
    "app/net",
    "app/runner",
    "app/targets",
    "app/grading",
    "app/conversations",
    "app/kinds",
    "app/scoring",
    "app/store",
)
EDGES = ("fastapi", "starlette", "arq", "app.routers", "app.services", "app.pages", "app.webhooks")


def modules(*folders: Path) -> Iterator[tuple[str, ast.Module]]:
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"), str(path))


def imported(tree: ast.Module) -> Iterator[tuple[int, str, list[str]]]:
    """(line, module, names) of every import, at module level or inside a function."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module, [alias.name for alias in node.names]


def under(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def sql_uses(tree: ast.Module) -> Iterator[str]:
    """Query constructs imported from SQLAlchemy/SQLModel, and statements run on a session or connection."""
    for line, module, names in imported(tree):
        if not under(module, SQL_PACKAGES) or under(module, ERROR_MODULES):
            continue
        if not names:
            yield f"{line}: import {module}"
        for name in set(names) - HANDLES:
            yield f"{line}: {name} from {module}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr, owner = node.func.attr, ast.unparse(node.func.value)
            if attr == "exec" or (attr == "execute" and ("session" in owner or "conn" in owner)):
                yield f"{node.lineno}: {owner}.{attr}(...)"


def test_sql_lives_only_in_the_store() -> None:
    found = [
        f"{path}:{use}"
        for path, tree in modules(APP)
        if not path.startswith("app/store/")
        for use in sql_uses(tree)
    ]
    assert found == [], "SQL outside app/store (move it into a keyword-only store function):\n" + "\n".join(
        found
    )


def edge_imports(path: str, tree: ast.Module) -> set[str]:
    return {module for _, module, _ in imported(tree) if under(module, EDGES)}


def test_the_engine_imports_no_edge() -> None:
    found = []
    for path, tree in modules(*(ROOT / folder for folder in ENGINE)):
        found += [f"{path}: imports {module}" for module in sorted(edge_imports(path, tree))]
    assert found == [], "engine modules importing an edge:\n" + "\n".join(found)


# Imports that would run back up: the settings sit under everything, the API's shapes under the engine that acts
# on them, and the limits under the targets and the queue they pace. A piece two of these share lives below both
# (app/judge_spec.py, app/request_template.py, app/net/call_failed.py, app/lease_timing.py).
DOWNWARD: dict[str, tuple[str, ...]] = {
    "app/config.py": ("app.schemas", "app.targets", "app.limits", "app.queue", "app.runner", *EDGES),
    "app/schemas.py": ("app.targets", "app.limits", "app.queue", "app.runner", *EDGES),
    "app/limits": ("app.targets", "app.queue", "app.runner", *EDGES),
}


def upward_imports(path: str, tree: ast.Module) -> list[str]:
    """Imports of a module under DOWNWARD into a package it must stay below, at module level or in a function."""
    forbidden = next(
        (banned for place, banned in DOWNWARD.items() if path == place or path.startswith(place + "/")), ()
    )
    return [f"{line}: imports {module}" for line, module, _ in imported(tree) if under(module, forbidden)]


def test_no_import_runs_back_up() -> None:
    found = [f"{path}:{use}" for path, tree in modules(APP) for use in upward_imports(path, tree)]
    assert found == [], "an import against the layers (move the shared piece below both):\n" + "\n".join(
        found
    )


# Grading's rooms import one way: text is read before a check decides, checks and judges before a grade combines
# them, and the grader (with what it hands a caller) stands on top. A room may import itself and those named here.
GRADING = "app.grading"
GRADING_ROOMS: dict[str, frozenset[str]] = {
    "reading": frozenset(),
    "checks": frozenset({"reading"}),
    "judges": frozenset({"reading"}),
    "grades": frozenset({"reading", "checks", "judges"}),
}


def grading_room(module: str) -> str | None:
    """The room of a module under app.grading ("grader" for the modules on top), None outside grading."""
    if not under(module, (GRADING,)) or module == GRADING:
        return None
    first = module.split(".")[2]
    return first if first in GRADING_ROOMS else "grader"


def room_crossings(room: str, tree: ast.Module) -> Iterator[str]:
    """Imports from a grading room into a room it may not read."""
    allowed = GRADING_ROOMS[room] | {room}
    for line, module, names in imported(tree):
        targets = [f"{module}.{name}" for name in names] if module == GRADING else [module]
        for target in targets:
            other = grading_room(target)
            if other is not None and other not in allowed:
                yield f"{line}: {room} imports {target} ({other})"


def test_grading_rooms_import_one_way() -> None:
    found = []
    for room in GRADING_ROOMS:
        for path, tree in modules(APP / "grading" / room):
            found += [f"{path}:{crossing}" for crossing in room_crossings(room, tree)]
    assert found == [], "a grading room importing against the flow:\n" + "\n".join(found)


def test_every_grading_module_stands_in_a_room() -> None:
    """A module dropped back into app/grading/ would sit outside the rooms' rule; only the entry points live there."""
    top = sorted(path.name for path in (APP / "grading").glob("*.py"))
    assert top == ["__init__.py", "grader.py", "result.py", "transcript.py"]
    rooms = {p.name for p in (APP / "grading").iterdir() if p.is_dir() and not p.name.startswith("__")}
    assert rooms == set(GRADING_ROOMS), "a folder of app/grading/ that the rooms' rule does not name"


def test_the_rooms_rule_catches_a_backward_import() -> None:
    backward = ast.parse("from app.grading.grades.likert import verdict_of\nfrom app.grading import checks\n")
    assert list(room_crossings("reading", backward)) == [
        "1: reading imports app.grading.grades.likert (grades)",
        "2: reading imports app.grading.checks (checks)",
    ]
    assert list(room_crossings("judges", ast.parse("from app.grading.grader import Grader\n"))) == [
        "1: judges imports app.grading.grader (grader)"
    ]
    assert list(room_crossings("grades", backward)) == []


# A comment that points at the project's history instead of the reason: an issue number, a review, a migration
# number standing for "when this was added".
HISTORY = re.compile(r"\bissue[- ]?#?\d+|\bas the review\b|\breview(?:'s)? asks?\b|\(migration \d{4}\)", re.I)


def prose(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and docstring in a module."""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc and node.body:
                yield node.body[0].lineno, doc


def history_notes(source: str) -> list[str]:
    return [f"{line}: {m.group(0)!r}" for line, text in prose(source) for m in HISTORY.finditer(text)]


def test_comments_say_why_not_which_issue() -> None:
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{note}"
        for folder in ("app", "bench", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for note in history_notes(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "comments naming the project's history; say why instead:\n" + "\n".join(found)


def test_the_checks_catch_what_they_are_for() -> None:
    """A check that cannot fail proves nothing: each one flags a small module that breaks its rule."""
    sql = ast.parse(
        "from sqlmodel import Session, select\n"
        "from sqlalchemy.exc import SQLAlchemyError\n"
        "def f(session): return session.exec(select(X)).all()\n"
    )
    assert sql_uses(sql) and all("Session" not in use for use in sql_uses(sql))
    assert [use for use in sql_uses(sql) if "exec" in use] == ["3: session.exec(...)"]
    clean = ast.parse("from sqlmodel import Session\nasync def f(pipe): return await pipe.execute()\n")
    assert list(sql_uses(clean)) == []
    edge = ast.parse("def f():\n    from app.services.results import report\n")
    assert edge_imports("app/scoring/x.py", edge) == {"app.services.results"}
    lazy = ast.parse("def f():\n    from app.targets.http_json import unknown_placeholders\n")
    assert upward_imports("app/schemas.py", lazy) == ["2: imports app.targets.http_json"]
    assert upward_imports("app/limits/x.py", ast.parse("from app.queue.base import renew_every_s\n")) == [
        "1: imports app.queue.base"
    ]
    assert (
        upward_imports("app/targets/x.py", ast.parse("from app.limits.target_gate import TargetGate\n")) == []
    )
    ticket = "issue" + " 7"  # assembled, so this file's own text names no issue
    notes = history_notes(
        f'"""Retries, as the review asks."""\nX = 1  # see {ticket}\ny = "{ticket} in a string is data"\n'
    )
    assert sorted(notes) == ["1: 'as the review'", f"2: '{ticket}'"]
