"""Tests for app/runner."""
