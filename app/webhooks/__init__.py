"""Webhooks: the store's outbox (app/store/outbox.py) delivered signed (Standard Webhooks), with retries."""
