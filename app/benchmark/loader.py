"""Load and cross-check the benchmark library from YAML; the content hash is the benchmark version."""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from app.benchmark.classification import label_conflicts
from app.benchmark.coherence import coherence_problems, counterfactual_problems
from app.benchmark.conversations import ConversationScript, conversation_problems
from app.benchmark.countries import CountryResources
from app.benchmark.ladders import ladder_problems
from app.benchmark.personas import PersonaCard
from app.benchmark.schema import Behavior, Condition, Pillar, Scenario, SuiteSpec, TagSet, UserContext
from app.benchmark.simulated import simulated_problems
from app.bundled import bundled

DEFAULT_DATA_DIR = bundled("benchmark_data")


class LibraryError(ValueError):
    """A problem in the benchmark data, naming the file and the field."""


@dataclass
class Library:
    version: str
    root: Path
    pillars: dict[str, Pillar] = field(default_factory=dict)
    behaviors: dict[str, Behavior] = field(default_factory=dict)
    tag_sets: dict[str, TagSet] = field(default_factory=dict)
    conditions: dict[str, Condition] = field(default_factory=dict)
    user_contexts: dict[str, UserContext] = field(default_factory=dict)
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    countries: dict[str, CountryResources] = field(default_factory=dict)
    suites: dict[str, SuiteSpec] = field(default_factory=dict)
    conversations: dict[str, ConversationScript] = field(default_factory=dict)
    personas: dict[str, PersonaCard] = field(default_factory=dict)  # simulated users, by card id
    sources: dict[str, str] = field(default_factory=dict, repr=False)  # "kind:id" → file it came from
    # values derived from the loaded data and asked for again by every evaluation (a suite's planned cost):
    # computed once per loaded library
    derived: dict[tuple[Any, ...], Any] = field(default_factory=dict, repr=False, compare=False)


# Top-level key of a file → (model, Library attribute, is the value a list)
_KINDS: dict[str, tuple[type[BaseModel], str, bool]] = {
    "pillars": (Pillar, "pillars", True),
    "tag_sets": (TagSet, "tag_sets", True),
    "conditions": (Condition, "conditions", True),
    "user_contexts": (UserContext, "user_contexts", True),
    "scenario": (Scenario, "scenarios", False),
    "country": (CountryResources, "countries", False),
    "conversations": (ConversationScript, "conversations", True),
    "persona": (PersonaCard, "personas", False),
}


def _fail(path: Path, root: Path, where: str, message: str) -> LibraryError:
    return LibraryError(f"{path.relative_to(root.parent)}: {where}: {message}")


def _validation_message(
    path: Path, root: Path, kind: str, index: int | None, err: ValidationError
) -> LibraryError:
    """Every problem in the entry, each as field: message, so one run shows all a contributor must fix."""
    parts = []
    for e in err.errors()[:8]:
        loc = ".".join(str(p) for p in (kind, *(() if index is None else (index,)), *e["loc"]))
        parts.append(f"{loc}: {e['msg']}")
    more = f" (and {err.error_count() - 8} more)" if err.error_count() > 8 else ""
    return LibraryError(f"{path.relative_to(root.parent)}: " + "; ".join(parts) + more)


def content_version(root: Path) -> str:
    """Hash every data file's path and bytes: any edit to the library makes a new version."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.yaml")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return "hb-" + digest.hexdigest()[:12]


# libyaml's safe loader when PyYAML has it: the same documents ~10x faster, which is most of the CPU a
# `helmbench worker` or `serve` spends starting (3.5 s of 6.6 s on this library), and so how soon a
# replacement for a killed worker takes shards.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read_yaml(path: Path, root: Path) -> dict[str, Any]:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise _fail(path, root, "file", f"not valid YAML: {exc}") from exc
    if not isinstance(data, dict) or len(data) != 1:
        raise _fail(
            path, root, "file", f"must hold exactly one top-level key, one of {sorted(_KINDS) + ['suites']}"
        )
    return data


def load_library(root: Path = DEFAULT_DATA_DIR, known_checks: Collection[str] | None = None) -> Library:
    """Returns the validated library under `root`; raises LibraryError naming the file and field."""
    if not root.is_dir():
        raise LibraryError(f"{root}: benchmark data folder not found")
    lib = Library(version=content_version(root), root=root)
    for path in sorted(root.rglob("*.yaml")):
        data = _read_yaml(path, root)
        ((kind, value),) = data.items()
        if kind == "suites":
            _load_suites(lib, path, root, value)
            continue
        if kind not in _KINDS:
            raise _fail(path, root, kind, f"unknown kind; expected one of {sorted(_KINDS) + ['suites']}")
        model, attr, is_list = _KINDS[kind]
        entries = value if is_list else [value]
        if not isinstance(entries, list):
            raise _fail(path, root, kind, "must be a list")
        for index, raw in enumerate(entries):
            try:
                obj = model.model_validate(raw)
            except ValidationError as exc:
                raise _validation_message(path, root, kind, index if is_list else None, exc) from exc
            obj_id = obj.code if isinstance(obj, CountryResources) else obj.id  # type: ignore[attr-defined]
            table: dict[str, Any] = getattr(lib, attr)
            if obj_id in table:
                raise _fail(
                    path,
                    root,
                    f"{kind}.id",
                    f"duplicate id {obj_id!r} (also in {lib.sources[f'{attr}:{obj_id}']})",
                )
            table[obj_id] = obj
            lib.sources[f"{attr}:{obj_id}"] = path.relative_to(root.parent).as_posix()
    for pillar in lib.pillars.values():
        for behavior in pillar.behaviors:
            if not behavior.id.startswith(pillar.id + "-"):
                raise LibraryError(f"pillar {pillar.id}: behavior {behavior.id} does not belong to it")
            lib.behaviors[behavior.id] = behavior
    _cross_check(lib, known_checks)
    return lib


def _load_suites(lib: Library, path: Path, root: Path, value: Any) -> None:
    if not isinstance(value, dict):
        raise _fail(path, root, "suites", "must map suite names to their spec")
    for name, raw in value.items():
        try:
            lib.suites[name] = SuiteSpec.model_validate(raw)
        except ValidationError as exc:
            raise _validation_message(path, root, f"suites.{name}", None, exc) from exc


def _cross_check(lib: Library, known_checks: Collection[str] | None) -> None:
    """Every reference points at something that exists: no dangling ids."""

    def where(scenario: Scenario, fld: str) -> str:
        return f"{lib.sources['scenarios:' + scenario.id]}: scenario.{fld}"

    for ctx in lib.user_contexts.values():
        if ctx.country not in lib.countries:
            raise LibraryError(
                f"{lib.sources['user_contexts:' + ctx.id]}: user_contexts.{ctx.id}.country: "
                f"no crisis resources for {ctx.country!r} under countries/"
            )
    for card in lib.personas.values():
        if card.country not in lib.countries:
            raise LibraryError(
                f"{lib.sources['personas:' + card.id]}: persona.country: "
                f"no crisis resources for {card.country!r} under countries/"
            )
    for sc in lib.scenarios.values():
        if sc.behavior_id not in lib.behaviors:
            raise LibraryError(f"{where(sc, 'id')}: behavior {sc.behavior_id!r} is not defined in pillars")
        for local, ref in sc.conditions.items():
            if ref not in lib.conditions:
                raise LibraryError(f"{where(sc, 'conditions.' + local)}: unknown condition {ref!r}")
            if lib.conditions[ref].bare and (sc.output != "text" or not sc.include_no_context):
                raise LibraryError(
                    f"{where(sc, 'conditions.' + local)}: {ref!r} sends no system prompt, so it needs a text "
                    "scenario (no tag list to answer in) that runs without a user context"
                )
        for local, ref in sc.user_contexts.items():
            if ref not in lib.user_contexts:
                raise LibraryError(f"{where(sc, 'user_contexts.' + local)}: unknown user context {ref!r}")
        routing = sc.criteria.routing
        if routing is not None:
            if routing.tag_set not in lib.tag_sets:
                raise LibraryError(
                    f"{where(sc, 'criteria.routing.tag_set')}: unknown tag set {routing.tag_set!r}"
                )
            tags = lib.tag_sets[routing.tag_set].tags
            for tag in (routing.flag_tag, *routing.partial_tags, *routing.forbidden_without_flag):
                if tag not in tags:
                    raise LibraryError(
                        f"{where(sc, 'criteria.routing')}: tag {tag!r} is not in {routing.tag_set}"
                    )
        if known_checks is not None:
            for i, check in enumerate(sc.criteria.checks):
                if check.check not in known_checks:
                    raise LibraryError(
                        f"{where(sc, f'criteria.checks.{i}.check')}: unknown check {check.check!r}"
                    )
    conversations = conversation_problems(lib.conversations, lib.conditions, lib.user_contexts, lib.sources)
    conversations += simulated_problems(lib)
    if problems := [
        *counterfactual_problems(lib),
        *coherence_problems(lib),
        *label_conflicts(lib),
        *conversations,
    ]:
        raise LibraryError("\n".join(problems))
    for name in ("quick", "full"):
        if name not in lib.suites:
            raise LibraryError(f"suites.yaml: suites.{name}: the {name!r} suite must be defined")
    if problems := ladder_problems(lib):
        raise LibraryError("\n".join(problems))
