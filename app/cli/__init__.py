"""The `helmbench` command line (typer)."""
