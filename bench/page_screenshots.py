"""Screenshots of the pages for docs/screenshots/: the report, the explorer and the board of a quick, a
conversations, a simulated and a classification run of the toy bot (the toy simulator plays the simulated users).

    python -m bench.page_screenshots            # writes docs/screenshots/<suite>-<page>.png

`helmbench serve`, `helmbench example-target` and `helmbench example-simulator` run as processes on free ports on
a temporary embedded site (SQLite); Debian's Chromium takes the pictures (never a downloaded browser).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

from bench.ports import free_port, wait_http

HELMBENCH = str(Path(sys.executable).with_name("helmbench"))
DOCS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
SUITES = ("quick", "conversations", "simulated", "classification")
CHROMIUM = "/usr/bin/chromium"


@contextmanager
def process(args: list[str], env: dict[str, str], log: Path) -> Iterator[None]:
    with log.open("w") as out:
        proc = subprocess.Popen(args, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def run(api: httpx.Client, target_id: str, suite: str, simulator: str) -> str:
    body: dict[str, object] = {
        "target_id": target_id,
        "suite": suite,
        "visibility": "public",
        "share_transcripts": True,
    }
    if suite == "simulated":
        body["simulator"] = {"base_url": simulator, "model": "toy-simulator", "turn_cap": 8}
    started = api.post("/v1/evaluations", json=body)
    started.raise_for_status()
    return str(started.json()["id"])


def wait_done(api: httpx.Client, evaluation_id: str, timeout: float = 900) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        status = api.get(f"/v1/evaluations/{evaluation_id}").json()["status"]
        if status in ("succeeded", "failed", "cancelled", "stalled"):
            print(evaluation_id, status, flush=True)
            return
        time.sleep(1)
    raise TimeoutError(evaluation_id)


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="helmbench-shots-"))
    api_port, toy_port, sim_port = free_port(), free_port(), free_port()
    env = {
        "HELMBENCH_VAR_DIR": str(tmp / "var"),
        "HELMBENCH_TARGET_ALLOWLIST": "127.0.0.0/8,::1,localhost",
        "HELMBENCH_DATABASE_URL": "",
        "HELMBENCH_REDIS_URL": "",
    }
    base = f"http://127.0.0.1:{api_port}"
    with ExitStack() as stack:
        stack.enter_context(
            process([HELMBENCH, "example-target", "--port", str(toy_port)], env, tmp / "toy.log")
        )
        stack.enter_context(
            process([HELMBENCH, "example-simulator", "--port", str(sim_port)], env, tmp / "sim.log")
        )
        serve = [HELMBENCH, "serve", "--host", "127.0.0.1", "--port", str(api_port)]
        stack.enter_context(process(serve, env, tmp / "api.log"))
        wait_http(f"{base}/healthz", timeout=120)
        key = (tmp / "var" / "admin.key").read_text().strip()
        api = stack.enter_context(
            httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=30)
        )
        target = api.post(
            "/v1/targets",
            json={
                "name": "Toy bot",
                "base_url": f"http://127.0.0.1:{toy_port}/v1",
                "model": "helmbench-toy-bot",
            },
        )
        target.raise_for_status()
        runs = {s: run(api, target.json()["id"], s, f"http://127.0.0.1:{sim_port}/v1") for s in SUITES}
        for evaluation_id in runs.values():
            wait_done(api, evaluation_id)
        time.sleep(3)  # the board renders in the background once an evaluation finishes
        DOCS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            for suite, evaluation_id in runs.items():
                shots = {
                    "report": f"/evaluations/{evaluation_id}",
                    "explorer": f"/evaluations/{evaluation_id}/results?limit=20",
                    "board": f"/?suite={suite}" if suite != "quick" else "/",
                }
                for name, path in shots.items():
                    page.goto(base + path)
                    page.screenshot(path=str(DOCS / f"{suite}-{name}.png"), full_page=True)
                    print("wrote", DOCS / f"{suite}-{name}.png", flush=True)
            browser.close()


if __name__ == "__main__":
    main()
