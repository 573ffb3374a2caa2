"""Share links: the owning team (or a platform admin) lets people without a key read one evaluation's report
page. Only the token's hash is stored; the link is shown once, when made."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import timedelta

from sqlmodel import Session

from app.errors import Gone, NotFound
from app.schemas import ShareCreate, ShareCreated, SharePublic
from app.services.keys import is_platform_admin
from app.store import evaluations as ev_store
from app.store import shares as store
from app.store.models import ApiKey, Evaluation, ShareLink, utcnow


def _owned(session: Session, actor: ApiKey, evaluation_id: str) -> Evaluation:
    """The evaluation, if the key's team owns it or the key is a platform admin's; else not found."""
    scope = None if is_platform_admin(session=session, key=actor) else actor.team_id
    evaluation = ev_store.get_evaluation(session=session, team_id=scope, evaluation_id=evaluation_id)
    if evaluation is None:
        raise NotFound("evaluation_id", f"no evaluation {evaluation_id!r}")
    return evaluation


def _active(share: ShareLink) -> bool:
    return share.revoked_at is None and share.expires_at > utcnow()


def share_public(share: ShareLink) -> SharePublic:
    return SharePublic(
        id=share.id,
        evaluation_id=share.evaluation_id,
        label=share.label,
        created_at=share.created_at,
        expires_at=share.expires_at,
        revoked_at=share.revoked_at,
        active=_active(share),
    )


def create_share(
    *, session: Session, actor: ApiKey, evaluation_id: str, body: ShareCreate, url_for: Callable[[str], str]
) -> ShareCreated:
    """A new link to the evaluation's report page; `url_for` makes the page's URL from the token."""
    evaluation = _owned(session, actor, evaluation_id)
    raw = secrets.token_urlsafe(32)
    share = store.create_share(
        session=session,
        evaluation_id=evaluation.id,
        team_id=evaluation.team_id,
        raw=raw,
        expires_at=utcnow() + timedelta(days=body.expires_in_days),
        label=body.label,
        created_by=actor.id,
    )
    session.commit()
    return ShareCreated(**share_public(share).model_dump(), url=url_for(raw))


def list_shares(*, session: Session, actor: ApiKey, evaluation_id: str) -> list[SharePublic]:
    """The evaluation's links, revoked and expired ones included; never their tokens (not stored)."""
    _owned(session, actor, evaluation_id)
    return [share_public(s) for s in store.list_shares(session=session, evaluation_id=evaluation_id)]


def revoke_share(*, session: Session, actor: ApiKey, evaluation_id: str, share_id: str) -> SharePublic:
    """The link stops opening the report at once; revoking twice is harmless."""
    _owned(session, actor, evaluation_id)
    share = store.get_share(session=session, evaluation_id=evaluation_id, share_id=share_id)
    if share is None:
        raise NotFound("share_id", f"no share {share_id!r}")
    store.revoke_share(session=session, share=share)
    session.commit()
    return share_public(share)


def open_share(*, session: Session, token: str) -> ShareLink:
    """The share a token opens now: unknown → not found, revoked or expired → gone (a clear page either way)."""
    share = store.find_share(session=session, raw=token)
    if share is None:
        raise NotFound("token", "this share link is unknown, or its evaluation was deleted")
    if share.revoked_at is not None:
        raise Gone("token", "this share link was revoked by the team that made it")
    if share.expires_at <= utcnow():
        raise Gone("token", "this share link has expired; ask the team that sent it for a new one")
    return share
