"""Judges: a model asked to grade a reply on the item's 1–5 scale, alone or as a panel."""
