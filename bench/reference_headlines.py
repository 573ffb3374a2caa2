"""The reference bots' headline as a reader reads it: score and quality out of 100, band, pass rate, the cap.

    python -m bench.reference_headlines [quick|full] [bot,bot,...]

Runs the careful bot and its one-defect ablations (tests/scoring/bots.py) through the real pipeline (the app on
a temporary SQLite site, the bots respx-mocked), as tests/scoring/test_reference_bots.py does, and prints one row
a bot: the figures behind docs/scoring.md §4.1.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import respx
from fastapi.testclient import TestClient

from app.main import create_app
from tests.real_library import real_library_settings
from tests.scoring.bots import BOT_NAMES, Bot, serve
from tests.waits import settled

BASE = "http://127.0.0.1:9911"


def main() -> None:
    suite = sys.argv[1] if len(sys.argv) > 1 else "quick"
    bots = sys.argv[2].split(",") if len(sys.argv) > 2 else list(BOT_NAMES)
    os.environ.update(
        HELMBENCH_LOCAL_WORKER="false", HELMBENCH_PROBE_ENDPOINTS="false"
    )  # shards in this process
    var = Path(tempfile.mkdtemp()) / "var"
    settings = real_library_settings(
        var, worker_max_jobs=1, max_active_evaluations=len(bots), shard_size=20_000
    )
    with (
        respx.mock(using="httpx", assert_all_called=False) as router,
        TestClient(create_app(settings)) as client,
    ):
        router.route(host="testserver").pass_through()
        client.headers["Authorization"] = "Bearer " + (var / "admin.key").read_text().strip()
        countries = client.app.state.helmbench.deps.library.countries  # type: ignore[attr-defined]
        started = {}
        for name in bots:
            router.post(f"{BASE}/{name}/v1/chat/completions").mock(
                side_effect=serve(Bot(countries, None if name == "careful" else name))
            )
            target = client.post(
                "/v1/targets", json={"name": name, "base_url": f"{BASE}/{name}/v1", "model": f"ref-{name}"}
            ).json()
            started[name] = client.post(
                "/v1/evaluations", json={"target_id": target["id"], "suite": suite}
            ).json()
        print(f"{'bot':<24}{'items':>7}{'score':>8}  band{'quality':>9}{'pass rate':>11}  cap")
        for name, evaluation in started.items():
            settled(client, evaluation["id"], timeout=3000, every=0.5)
            report = client.get(f"/v1/evaluations/{evaluation['id']}/report").json()
            h, rate = report["headline"], report["overall"]["pass_rate"]
            print(
                f"{name:<24}{report['n_items']:>7}{h['score_100']:>8.1f}  {h['band']:<4}{h['quality_100']:>9.1f}"
                f"{rate * 100:>10.0f}%  {h.get('cap', '')}",
                flush=True,
            )


if __name__ == "__main__":
    main()
