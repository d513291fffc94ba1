"""Issue 22: concurrent `jobs-tui start` calls of one session never erase a job's pid."""

from __future__ import annotations

import json
import os
import signal

import pytest

ROUNDS = 20


def _records(registry_dir: str) -> list[dict]:
    jobs = []
    for name in os.listdir(registry_dir):
        if name.startswith("registry-") and name.endswith(".json"):
            with open(os.path.join(registry_dir, name)) as fh:
                jobs += json.load(fh)["jobs"]
    return jobs


def _stop(jobs: list[dict]) -> None:
    for job in jobs:
        for key in ("shimPid", "pid"):
            if isinstance(job.get(key), int):
                try:
                    os.kill(job[key], signal.SIGKILL)
                except OSError:
                    pass


@pytest.mark.timeout(240)
def test_three_concurrent_starts_never_lose_a_pid(cli):
    try:
        for _ in range(ROUNDS):
            calls = [cli.popen("start", "--", "sleep 60", session="s") for _ in range(3)]
            for call in calls:
                _out, err = call.communicate(timeout=60)
                assert call.returncode == 0, err
        jobs = _records(cli.registry_dir)
        assert len(jobs) == 3 * ROUNDS
        nulls = sorted(j["id"] for j in jobs if j["pid"] is None or j.get("shimPid") is None)
        assert nulls == []
    finally:
        _stop(_records(cli.registry_dir))
