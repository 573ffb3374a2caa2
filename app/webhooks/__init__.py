"""Webhooks: an outbox written with each settled status, delivered signed (Standard Webhooks) with retries."""
