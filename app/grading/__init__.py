"""Grading: deterministic checks first, an optional judge where judgment is needed."""
