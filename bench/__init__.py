"""Benchmarks and the mock target they run against."""
