"""Grades unchanged: a seeded sample of the reference bots' replies graded now, against the digests kept in
tests/grading/golden_grades.jsonl (tests/grading/golden.py says how to write them again, and when)."""

from __future__ import annotations

from tests.grading.golden import current_grades, stored_grades


def test_every_grade_of_the_sample_is_what_it_was() -> None:
    was, now = stored_grades(), current_grades()
    assert [(g["bot"], g["key"]) for g in now] == [(g["bot"], g["key"]) for g in was], (
        "the sample itself changed (the library or the bots): write the file again if that was meant"
    )
    changed = [
        f"{a['bot']} {a['key']}: {a['verdict']}/{a['grade']} -> {b['verdict']}/{b['grade']}"
        + ("" if (a["verdict"], a["grade"]) != (b["verdict"], b["grade"]) else " (checks or reasons)")
        for a, b in zip(was, now, strict=True)
        if a != b
    ]
    assert not changed, f"{len(changed)} of {len(now)} grades changed:\n" + "\n".join(changed[:15])
