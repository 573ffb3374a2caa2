"""Kinds of item: what a suite's `kind` names, each in one module behind one interface (base.py)."""
