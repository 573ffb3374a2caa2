"""Share links: a random token (only its hash stored) opening one evaluation's report page, until it expires."""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import delete
from sqlmodel import Session, col, select

from app.store.models import ShareLink, utcnow


def token_hash(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def create_share(
    *,
    session: Session,
    evaluation_id: str,
    team_id: str,
    raw: str,
    expires_at: datetime,
    label: str | None,
    created_by: str | None,
) -> ShareLink:
    share = ShareLink(
        token_hash=token_hash(raw),
        evaluation_id=evaluation_id,
        team_id=team_id,
        expires_at=expires_at,
        label=label,
        created_by=created_by,
    )
    session.add(share)
    session.flush()
    return share


def list_shares(*, session: Session, evaluation_id: str) -> list[ShareLink]:
    stmt = select(ShareLink).where(ShareLink.evaluation_id == evaluation_id)
    return list(session.exec(stmt.order_by(col(ShareLink.created_at), col(ShareLink.id))))


def get_share(*, session: Session, evaluation_id: str, share_id: str) -> ShareLink | None:
    """The share if it is one of this evaluation's (another evaluation's share is simply not found)."""
    share = session.get(ShareLink, share_id)
    return share if share is not None and share.evaluation_id == evaluation_id else None


def find_share(*, session: Session, raw: str) -> ShareLink | None:
    """The share this token opens, revoked or expired included (the caller says which)."""
    return session.exec(select(ShareLink).where(ShareLink.token_hash == token_hash(raw))).first()


def revoke_share(*, session: Session, share: ShareLink) -> None:
    if share.revoked_at is None:
        share.revoked_at = utcnow()
        session.add(share)


def delete_shares_of(*, session: Session, evaluation_id: str) -> None:
    session.execute(delete(ShareLink).where(col(ShareLink.evaluation_id) == evaluation_id))
