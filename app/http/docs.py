"""/docs and /redoc: Swagger UI and ReDoc from the service's own assets, and from nowhere else.

fastapi-offline serves the bundled assets under ASSETS_URL. The pages also get a Content-Security-Policy that allows
only this origin, so nothing they load can reach a third party: ReDoc's sidebar, for one, shows a logo from its
vendor's CDN, which would be a request out from every reader (and a broken image offline).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from app.http.asgi import ASGIApp, Message, Receive, Scope, Send

DOCS_URL, REDOC_URL, ASSETS_URL = "/docs", "/redoc", "/docs/assets"
# Both pages start their viewer with an inline script and style it inline; ReDoc's search runs in a blob: worker.
POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'"
)


def app_with_offline_docs(**options: Any) -> FastAPI:
    """A FastAPI app whose documentation pages need no network but the service's."""
    app = FastAPIOffline(
        docs_url=DOCS_URL,
        redoc_url=REDOC_URL,
        static_url=ASSETS_URL,
        # Swagger UI would send the description's address to swagger.io's validator for a badge.
        swagger_ui_parameters={"validatorUrl": None},
        **options,
    )
    app.add_middleware(DocsPolicyMiddleware)
    return app


class DocsPolicyMiddleware:
    """Adds the same-origin Content-Security-Policy to the two documentation pages; other paths pass untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") not in (DOCS_URL, REDOC_URL):
            await self.app(scope, receive, send)
            return

        async def send_with_policy(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (b"content-security-policy", POLICY.encode())]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_policy)
