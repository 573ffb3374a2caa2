"""Business workflows the edges call: one call per request."""
