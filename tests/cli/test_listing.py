"""`helmbench evaluations list|cancel`, `targets list` and `leaderboard` against the real app on a loopback port."""

from __future__ import annotations

from pathlib import Path

from app.client import HelmbenchClient
from tests.cli.test_client import cli, server  # noqa: F401 - the served app fixture
from tests.cli.test_watch import slow, start_one_at_a_time  # noqa: F401 - a slow target, served
from tests.waits import eventually


def test_list_targets_and_evaluations_page_by_page(server: tuple[str, str, str]) -> None:  # noqa: F811
    url, key, target = server
    auth = ["--url", url, "--key", key]
    ids = []
    for name in ("first-bot", "second-bot"):
        code, out, err = cli(
            "submit", *auth, "--name", name, "--base-url", target, "--model", "m-1", "--public"
        )
        assert code == 0, err
        ids.append(out.strip())
        assert cli("watch", ids[-1], *auth)[0] == 0

    code, out, err = cli("targets", "list", *auth)
    assert code == 0, err
    assert "first-bot" in out and "second-bot" in out and target in out

    code, out, err = cli("evaluations", "list", *auth, "--limit", "1")
    assert code == 0, err
    assert ids[1] in out and ids[0] not in out and "succeeded" in out and "2/2" in out
    cursor = out.strip().splitlines()[-1].removeprefix("more: --cursor ")
    code, out, _ = cli("evaluations", "list", *auth, "--limit", "1", "--cursor", cursor)
    assert ids[0] in out and ids[1] not in out and "more:" not in out
    code, out, _ = cli("evaluations", "list", *auth, "--limit", "1", "--all")
    assert ids[0] in out and ids[1] in out and "more:" not in out

    board = HelmbenchClient(url)  # the board is rendered again in the background after a change
    eventually(lambda: len(board.leaderboard().entries) == 2, what="both runs on the board")
    code, out, err = cli("leaderboard", "--url", url, env={"HELMBENCH_KEY": ""})  # public: no key needed
    assert code == 0, err
    assert "first-bot" in out and "second-bot" in out and "benchmark hb-" in out
    assert "(" in out.split("first-bot")[1].splitlines()[0], "the score's interval is shown"
    served = board.leaderboard()
    for entry in served.entries:  # the score out of 100 and its band, as the pages print them
        line = out.split(entry.target_name)[1].splitlines()[0]
        assert f"{entry.score_100:.1f}" in line and f"│ {entry.band} " in line, line
    for pillar, name in served.pillar_names.items():  # pillar columns by id, each id named under the table
        assert f"{pillar} {name}" in " ".join(out.split())
    code, out, _ = cli("leaderboard", "--url", url, "--suite", "full")
    assert code == 0 and "first-bot" not in out


def test_cancel_a_running_evaluation_then_refuse_a_second_cancel(
    slow: tuple[list[str], str],  # noqa: F811
    tmp_path: Path,
) -> None:
    auth, target = slow
    evaluation_id = start_one_at_a_time(auth, target, tmp_path, repeats=5)
    code, out, err = cli("evaluations", "cancel", evaluation_id, *auth)
    assert code == 0, err
    assert out.startswith(f"{evaluation_id}: cancel requested")
    code, out, _ = cli("watch", evaluation_id, *auth)
    assert code == 1 and f"{evaluation_id} cancelled" in out
    code, _, err = cli("evaluations", "cancel", evaluation_id, *auth)
    assert code == 1 and err.strip() == "error: 409 Conflict: the evaluation is already cancelled [status]"
    code, _, err = cli("evaluations", "cancel", "ev_missing", *auth)
    assert code == 1 and "404" in err and "[evaluation_id]" in err
