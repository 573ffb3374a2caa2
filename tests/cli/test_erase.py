"""`helmbench delete-evaluation` and `delete-batch` against the real app served on a loopback port."""

from __future__ import annotations

import pytest

from app.client import ApiError, HelmbenchClient, ndjson
from tests.cli.test_client import cli, server  # noqa: F401 - the served app fixture
from tests.routers.test_grade_batches import TRANSCRIPTS
from tests.waits import eventually


def test_delete_an_evaluation_keeping_its_report_and_a_batch(server: tuple[str, str, str]) -> None:  # noqa: F811
    url, key, target = server
    auth = ["--url", url, "--key", key]
    code, out, err = cli("submit", *auth, "--name", "c", "--base-url", target, "--model", "m")
    assert code == 0, err
    evaluation_id = out.strip()
    assert cli("watch", evaluation_id, *auth)[0] == 0
    client = HelmbenchClient(url, key)
    batch = client.submit_grade_batch(ndjson([TRANSCRIPTS[0]]))
    eventually(lambda: client.get_grade_batch(batch.id).status == "succeeded", what="the batch")

    code, out, err = cli("export", evaluation_id, "--redact", *auth)
    assert code == 0 and len(out.splitlines()) == 2, err

    code, out, err = cli("delete-evaluation", evaluation_id, "--keep-report", *auth)
    assert code == 0 and out.strip() == f"{evaluation_id} deleted (its report kept)", err
    with pytest.raises(ApiError) as erased:
        client.results(evaluation_id)
    assert erased.value.status == 410
    assert client.report(evaluation_id)["overall"]["n"] == 2  # the quick suite
    code, out, err = cli("delete-batch", batch.id, *auth)
    assert code == 0 and out.strip() == f"{batch.id} deleted", err
    code, _, err = cli("delete-batch", batch.id, *auth)
    assert code == 1 and err.strip() == f"error: 404 Not found: no grade batch '{batch.id}' [batch_id]"
