"""Grades: the rules' 1–5 grade from the checks' findings, and the verdict that combines it with a judge's."""
