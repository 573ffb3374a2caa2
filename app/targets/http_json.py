"""Generic HTTP JSON adapter for custom product endpoints: a request template in, a JSON pointer to the reply.

Template placeholders are whole string values (replaced by a typed value) or parts of strings (text only):
  "{{messages}}"   the conversation as [{"role", "content"}, …] (system first)
  "{{turns}}"      the conversation without the system message
  "{{system}}"     the system prompt text
  "{{last_user}}"  the latest user message text
  "{{model}}", "{{max_tokens}}"
The reply pointer is an RFC 6901 JSON pointer into the response, e.g. "/output/text" or "/choices/0/text".
"""

from __future__ import annotations

from typing import Any

from app.request_template import TOKEN
from app.targets.base import TargetConfig
from app.targets.http import HttpTarget


def fill(template: Any, values: dict[str, Any]) -> Any:
    """The template with placeholders replaced; other values are copied as they are."""
    if isinstance(template, dict):
        return {key: fill(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(value, values) for value in template]
    if isinstance(template, str):
        whole = TOKEN.fullmatch(template)
        if whole and whole.group(1) in values:
            return values[whole.group(1)]
        return TOKEN.sub(lambda m: str(values.get(m.group(1), m.group(0))), template)
    return template


def resolve_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901: "" is the whole document; raises KeyError/IndexError/TypeError when the path is not there."""
    if pointer == "":
        return document
    if not pointer.startswith("/"):
        raise KeyError(f"pointer {pointer!r} must start with '/'")
    node = document
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            if not part.isdigit():
                raise TypeError(f"{part!r} is not a list index")
            node = node[int(part)]
        elif isinstance(node, dict):
            node = node[part]
        else:
            raise TypeError(f"cannot step into {type(node).__name__} with {part!r}")
    return node


class GenericJsonTarget(HttpTarget):
    """Any JSON endpoint: the body is the target's request template filled in, the reply read at its pointer."""

    def endpoint(self, config: TargetConfig) -> tuple[str, dict[str, str]]:
        if config.request_template is None or config.reply_pointer is None:
            raise ValueError("an http_json target needs request_template and reply_pointer")
        return config.base_url, {"authorization": f"Bearer {config.api_key}"} if config.api_key else {}

    def body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        users = [m["content"] for m in messages if m["role"] == "user"]
        values: dict[str, Any] = {
            "messages": messages,
            "turns": [m for m in messages if m["role"] != "system"],
            "system": "\n\n".join(m["content"] for m in messages if m["role"] == "system"),
            "last_user": users[-1] if users else "",
            "model": self._config.model,
            "max_tokens": self._config.max_tokens,
        }
        body = fill(self._config.request_template, values)
        return {**self._config.params, **body} if isinstance(body, dict) else body

    def parse(self, data: Any) -> tuple[str, dict[str, Any] | None]:
        text = resolve_pointer(data, self._config.reply_pointer)
        usage = data.get("usage") if isinstance(data, dict) else None
        return text, usage if isinstance(usage, dict) else None
