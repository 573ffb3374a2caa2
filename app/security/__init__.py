"""Secrets at rest and guards on what users send us."""
