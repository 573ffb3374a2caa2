"""Metrics (Prometheus) and structured logs, shared by the API process and the workers."""
