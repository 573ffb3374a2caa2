"""arq worker edge: translate a queued job into one engine call."""
