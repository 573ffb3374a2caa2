"""Server-Sent Events in the OpenAPI description: each event's name, when it comes and the schema of its data.

OpenAPI 3.1 has no words for a stream's events, so each stream lists them under `x-events` (name → description
and `data` schema) and in its description; the data's models join the components, which FastAPI fills only
with the models routes return."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

COMPONENT = "#/components/schemas/{model}"
EVENT_DATA: dict[str, type[BaseModel]] = {}  # the models of every stream's data, by name, for the components


def event_stream(summary: str, events: dict[str, tuple[type[BaseModel], str]]) -> dict[int | str, Any]:
    """The 200 answer of a Server-Sent Events route, for `responses=`: event name → (data model, when)."""
    for model, _ in events.values():
        EVENT_DATA[model.__name__] = model
    lines = [f"- `{name}`: {when} `data`: {model.__name__} (JSON)." for name, (model, when) in events.items()]
    return {
        200: {
            "description": summary + "\n\n" + "\n".join(lines),
            "content": {
                "text/event-stream": {
                    "schema": {
                        "type": "string",
                        "description": "Server-Sent Events (event, id, data lines).",
                    },
                    "x-events": {
                        name: {"description": when, "data": {"$ref": COMPONENT.format(model=model.__name__)}}
                        for name, (model, when) in events.items()
                    },
                }
            },
        }
    }


def event_schemas() -> dict[str, Any]:
    """The JSON schemas of every stream's data (and what they refer to), as components."""
    _, top = models_json_schema(
        [(model, "serialization") for model in EVENT_DATA.values()], ref_template=COMPONENT
    )
    return dict(top.get("$defs", {}))
