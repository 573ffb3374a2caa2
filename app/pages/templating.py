"""The pages' Jinja environment, shared by the report, board and sign-in pages."""

from __future__ import annotations

from pathlib import Path

from fastapi.templating import Jinja2Templates

from app.pages import format as fmt
from app.scoring.vocabulary import BANDS, MEANINGS, metric_label

templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))
templates.env.filters.update(
    pct=fmt.pct,
    interval=fmt.interval,
    score=fmt.score,
    on_100=fmt.on_100,
    interval_100=fmt.interval_100,
    metric_label=metric_label,
)
templates.env.globals.update(bar_width=fmt.bar_width, meanings=MEANINGS, bands=BANDS)


def signed_out_header() -> str:
    """The header's viewer part as every cached page has it; a signed-in request swaps in its own."""
    return templates.get_template("viewer.html").render(viewer=None, shared=False)
