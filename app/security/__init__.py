"""Secrets at rest, key rotation and redaction of what must never reach a log."""
