"""Tests for app/queue."""
