"""Who is looking at a page: a Bearer key (as the API checks it), a browser signed in with a key, or no one.

Signing in takes an API key once, in a form posted over the body (never a URL), and answers with a cookie holding
a random session token: HttpOnly, SameSite=Lax, Secure over https. Every form the pages post carries a CSRF token:
before sign-in a double-submit one (a cookie and a field that must match), after it one derived from the session.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, Depends, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlmodel import Session

from app.deps import AppState, SessionDep, admit_key, check_key, closing_session, get_state
from app.http.problems import Problem
from app.limits.api_rate import LimiterUnavailable
from app.pages.templating import templates
from app.services import browser_sessions
from app.store.models import ApiKey

SESSION_COOKIE = "hb_session"
SIGN_IN_COOKIE = "hb_sign_in"  # the sign-in form's double-submit token, before there is a session
SIGN_IN_PER_MINUTE, SIGN_IN_BURST = 10.0, 10  # tries per client address: enough for typos, too few to guess
NO_STORE = "private, no-store"
_bearer = HTTPBearer(auto_error=False)


@dataclass(frozen=True)
class Viewer:
    key: ApiKey
    team_name: str
    key_name: str
    csrf: str | None  # None for a Bearer request: nothing to sign out of


def _viewer_of_cookie(state: AppState, session: Session, token: str) -> Viewer | None:
    key = browser_sessions.signed_in_key(session=session, token=token)
    if key is None:
        return None
    admit_key(state, key, writes=False)  # the session reads only; its key's rate still counts
    name = browser_sessions.team_name(session=session, key=key)
    return Viewer(key=key, team_name=name, key_name=key.name, csrf=browser_sessions.csrf_token(token))


def viewer(
    request: Request,
    state: Annotated[AppState, Depends(get_state)],
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Viewer | None:
    """A Bearer key (checked as the API does), else a signed-in browser's key, else no one (public pages)."""
    if credentials is not None:
        key = check_key(request, state, session, credentials)
        name = browser_sessions.team_name(session=session, key=key)
        return Viewer(key=key, team_name=name, key_name=key.name, csrf=None)
    token = request.cookies.get(SESSION_COOKIE)
    return _viewer_of_cookie(state, session, token) if token else None


async def cookie_viewer(request: Request) -> Viewer | None:
    """The signed-in browser's viewer for a cached page (one thread hop, only when a cookie is sent)."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    state = get_state(request)

    def look_up() -> Viewer | None:
        with closing_session(state.deps.engine) as session:
            return _viewer_of_cookie(state, session, token)

    return await run_in_threadpool(look_up)


def viewer_header(viewer: Viewer | None, *, shared: bool = False) -> str:
    return templates.get_template("viewer.html").render(viewer=viewer, shared=shared)


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def _same_origin(request: Request) -> bool:
    """A browser names the page a form came from: another site's is refused (a missing Origin and Referer, as
    from curl, leaves the CSRF token to decide)."""
    if request.headers.get("sec-fetch-site") == "cross-site":
        return False
    sent = request.headers.get("origin") or request.headers.get("referer")
    if sent is None:
        return True
    here = urlsplit(str(request.base_url))
    there = urlsplit(sent)
    return (there.scheme, there.netloc) == (here.scheme, here.netloc)


def _local_path(value: str | None) -> str:
    """Where to go after signing in: a path on this site only, never another host (browsers drop tabs and
    newlines from a URL, so `/<tab>/host` would be `//host`: any control character is refused)."""
    if (
        value
        and value.startswith("/")
        and not value.startswith("//")
        and "\\" not in value
        and value.isprintable()
    ):
        return value
    return "/"


async def _form(request: Request) -> dict[str, str]:
    """An application/x-www-form-urlencoded body (what a plain HTML form posts), first value of each field."""
    body = (await request.body()).decode("utf-8", errors="replace")
    return {name: values[0] for name, values in parse_qs(body, keep_blank_values=True).items()}


def _forbidden(request: Request, detail: str) -> HTMLResponse:
    response = templates.TemplateResponse(
        request, "forbidden.html", {"detail": detail, "viewer": None}, status_code=403
    )
    response.headers["Cache-Control"] = NO_STORE
    return response


def _sign_in_form(
    request: Request, *, next_path: str, error: str | None = None, status_code: int = 200
) -> HTMLResponse:
    """The form, with a fresh double-submit token in a cookie and in a hidden field."""
    token = secrets.token_urlsafe(24)
    response = templates.TemplateResponse(
        request,
        "sign_in.html",
        {"csrf": token, "next": next_path, "error": error, "viewer": None},
        status_code=status_code,
    )
    response.set_cookie(
        SIGN_IN_COOKIE,
        token,
        max_age=3600,
        path="/sign-in",
        httponly=True,
        samesite="strict",
        secure=_secure(request),
    )
    # Not no-referrer: a browser then posts the form with Origin: null, which the origin check refuses.
    response.headers["Cache-Control"] = NO_STORE
    response.headers["Referrer-Policy"] = "same-origin"
    return response


router = APIRouter(tags=["pages"], include_in_schema=False)


@router.get("/sign-in", response_class=HTMLResponse)
def sign_in_page(request: Request, next: str | None = None) -> HTMLResponse:  # noqa: A002 - the query's name
    return _sign_in_form(request, next_path=_local_path(next))


def _try_sign_in(state: AppState, client: str, raw: str) -> browser_sessions.Started | tuple[int, str]:
    """A session for a good key, or the status and message to show with the form again."""
    try:
        wait = state.limiter.take(f"sign-in:{client}", per_minute=SIGN_IN_PER_MINUTE, burst=SIGN_IN_BURST)
    except LimiterUnavailable:  # unthrottled sign-in is what the limit is there to stop: refuse for now
        return 503, "Sign-in is unavailable for a moment; try again in a few seconds."
    if wait is not None:
        return 429, f"Too many sign-in attempts from here; try again in {int(wait) + 1} seconds."
    with closing_session(state.deps.engine) as session:
        try:
            key = admit_key(
                state, browser_sessions.key_for(session=session, raw=raw), writes=False, field="api_key"
            )
        except Problem as exc:
            if exc.status != 401:
                raise
            return 401, "That API key is unknown or revoked. Check it and try again."
        return browser_sessions.start(session=session, key=key, hours=state.deps.settings.session_hours)


@router.post("/sign-in", response_class=HTMLResponse)
async def sign_in(request: Request) -> Response:
    form = await _form(request)
    next_path = _local_path(form.get("next"))
    expected = request.cookies.get(SIGN_IN_COOKIE)
    sent = form.get("csrf", "")
    if not _same_origin(request) or not expected or not hmac.compare_digest(expected, sent):
        return _forbidden(request, "This sign-in form has expired or came from another site. Open it again.")
    raw = form.get("api_key", "").strip()
    if not raw:
        return _sign_in_form(request, next_path=next_path, error="Paste an API key.", status_code=422)
    client = request.client.host if request.client else "unknown"
    outcome = await run_in_threadpool(_try_sign_in, get_state(request), client, raw)
    if isinstance(outcome, tuple):
        status, message = outcome
        return _sign_in_form(request, next_path=next_path, error=message, status_code=status)
    response = RedirectResponse(next_path, status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        outcome.token,
        expires=outcome.expires_at,
        path="/",
        httponly=True,
        samesite="lax",
        secure=_secure(request),
    )
    response.delete_cookie(SIGN_IN_COOKIE, path="/sign-in")
    response.headers["Cache-Control"] = NO_STORE
    return response


@router.post("/sign-out", response_class=HTMLResponse)
async def sign_out(request: Request) -> Response:
    token = request.cookies.get(SESSION_COOKIE)
    response = RedirectResponse("/", status_code=303)
    response.headers["Cache-Control"] = NO_STORE
    if not token:
        return response  # nothing to end
    form = await _form(request)
    if not _same_origin(request) or not browser_sessions.csrf_ok(token, form.get("csrf")):
        return _forbidden(
            request, "This sign-out form came from another site or an old page. Sign out from a page here."
        )
    state = get_state(request)

    def end() -> None:
        with closing_session(state.deps.engine) as session:
            browser_sessions.end(session=session, token=token)

    await run_in_threadpool(end)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=_secure(request))
    return response
