"""Registering and changing a target: secrets sealed before they are stored and kept across changes; each
change a new version, checked as a whole like a new target; a refusal names the field and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.exceptions import RequestValidationError
from sqlmodel import Session, func, select

from app.errors import Invalid
from app.runner.runtime import Runtime
from app.schemas import TargetCreate, TargetUpdate
from app.services.targets import change_target, public_target, public_version, register_target
from app.store import targets as target_store
from app.store.models import Target
from tests.services.conftest import add_owner

URL = "http://127.0.0.1:9911/v1"
KEY = "sk-test-secret"


def _register(deps: Runtime, team_id: str, **body: Any) -> str:
    with Session(deps.engine) as session:
        target = register_target(
            session=session,
            settings=deps.settings,
            secrets=deps.secrets,
            team_id=team_id,
            body=TargetCreate.model_validate({"name": "bot", "base_url": URL, "model": "m-1", **body}),
        )
        session.commit()
        return target.id


def _change(deps: Runtime, target_id: str, **body: Any) -> Target:
    with Session(deps.engine) as session:
        target = session.get(Target, target_id)
        assert target is not None
        changed = change_target(
            session=session,
            settings=deps.settings,
            secrets=deps.secrets,
            target=target,
            body=TargetUpdate.model_validate(body),
        )
        session.commit()
        session.refresh(changed)
        session.expunge(changed)
        return changed


def _load(deps: Runtime, target_id: str) -> Target:
    with Session(deps.engine) as session:
        target = session.get(Target, target_id)
        assert target is not None
        session.expunge(target)
        return target


def test_secrets_are_sealed_and_the_defaults_of_this_deployment_filled_in(runtime: Runtime) -> None:
    team_id = add_owner(runtime.engine)[0]
    target_id = _register(runtime, team_id, base_url=URL + "/", api_key=KEY, headers={"X-Org": "org-7"})
    stored = _load(runtime, target_id)
    assert stored.api_key_secret and KEY not in stored.api_key_secret
    assert runtime.secrets.decrypt(stored.api_key_secret) == KEY
    assert stored.headers_secret and runtime.secrets.decrypt_json(stored.headers_secret) == {"X-Org": "org-7"}
    assert stored.base_url == URL and stored.max_concurrency == runtime.settings.target_concurrency
    public = public_target(stored, runtime.secrets)
    assert (public.has_api_key, public.header_names, public.version) == (True, ["X-Org"], 1)
    assert KEY not in public.model_dump_json() and "org-7" not in public.model_dump_json()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"base_url": "http://10.1.2.3/v1"}, "base_url"),  # outside this deployment's allow-list
        ({"max_concurrency": 300}, "max_concurrency"),  # within the schema's bound, over the deployment's
        ({"kind": "http_json", "request_template": {"q": "{{last_user}}"}}, "reply_pointer"),
        ({"kind": "http_json", "reply_pointer": "/text"}, "request_template"),
    ],
)
def test_a_refused_registration_names_the_field_and_stores_nothing(
    runtime: Runtime, body: dict[str, Any], field: str
) -> None:
    team_id = add_owner(runtime.engine)[0]
    with Session(runtime.engine) as session:
        existing = int(session.exec(select(func.count()).select_from(Target)).one())
    with pytest.raises(Invalid) as refused:
        _register(runtime, team_id, **body)
    assert refused.value.field == field and refused.value.detail.startswith(f"{field}:")
    with Session(runtime.engine) as session:
        assert int(session.exec(select(func.count()).select_from(Target)).one()) == existing


def test_a_change_is_the_next_version_keeping_what_it_leaves_out(runtime: Runtime) -> None:
    team_id = add_owner(runtime.engine)[0]
    target_id = _register(runtime, team_id, api_key=KEY, headers={"X-Org": "org-7"}, params={"top_p": 0.5})
    changed = _change(runtime, target_id, model="m-2", params=None)
    assert (changed.id, changed.version, changed.model, changed.params) == (target_id, 2, "m-2", {})
    assert changed.api_key_secret and runtime.secrets.decrypt(changed.api_key_secret) == KEY  # sealed anew
    assert changed.headers_secret and runtime.secrets.decrypt_json(changed.headers_secret) == {
        "X-Org": "org-7"
    }

    with Session(runtime.engine) as session:
        versions = target_store.list_versions(session=session, target_id=target_id)
    first, second = (public_version(v, runtime.secrets) for v in versions)
    assert (first.version, first.model, first.params) == (1, "m-1", {"top_p": 0.5})
    assert (second.version, second.model, second.header_names) == (2, "m-2", ["X-Org"])

    removed = _change(runtime, target_id, api_key=None, headers=None)
    assert removed.api_key_secret is None and removed.headers_secret is None and removed.version == 3


def test_a_refused_change_names_the_field_and_leaves_the_target_as_it_was(runtime: Runtime) -> None:
    team_id = add_owner(runtime.engine)[0]
    target_id = _register(runtime, team_id, api_key=KEY)
    with pytest.raises(Invalid) as refused:  # valid alone, but the merged target lacks a reply pointer
        _change(runtime, target_id, kind="http_json", request_template={"q": "{{last_user}}"})
    assert refused.value.field == "reply_pointer"
    with pytest.raises(RequestValidationError) as unreadable:  # checked by the create schema, as a whole
        _change(runtime, target_id, model="m-2", max_concurrency=0)
    assert [e["loc"] for e in unreadable.value.errors()] == [("body", "max_concurrency")]
    after = _load(runtime, target_id)
    assert (after.version, after.model, after.kind) == (1, "m-1", "openai_chat")
    with Session(runtime.engine) as session:
        assert len(target_store.list_versions(session=session, target_id=target_id)) == 1
