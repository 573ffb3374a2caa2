"""Tests for app/workers."""
