"""Tests for app/targets."""
