"""Declared jobs' supervisors (issue 26, Performance): a crash to its restart, and twenty
declared jobs idle (waiting or ready). Run by hand: `python -m pytest tests/bench -s -k declared`.

- A crash to its restart: at most `backoff_ms` + 50 ms (each instance writes the time it
  started, then exits 1: the gap between two is the exit, the reap, the backoff and the
  next spawn).
- 20 declared jobs waiting or ready, idle: their supervisors together at most 0.5% of a
  core (read from /proc/<shim>/stat over a quiet window).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import statistics
import sys
import time
from pathlib import Path

import pytest

from jobs_tui.engine import JobManager

BACKOFF_MS = 200
RESTARTS = 10
IDLE_JOBS = 20
IDLE_WINDOW_S = float(os.environ.get("JOBS_TUI_BENCH_IDLE_S", "10"))

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc: Linux")


def _decl(name: str, **overrides: object) -> dict:
    spec = {
        "name": name,
        "ready": None,
        "restart": "no",
        "max_restarts": None,
        "backoff_ms": 0,
        "depends": [],
        "stop_signal": "SIGTERM",
        "kill_grace_ms": 1000,
    }
    return spec | overrides


def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


async def _until(check, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_a_crash_to_its_restart(bench_root: Path) -> None:
    stamps = bench_root / "declared-stamps"
    registry = bench_root / "declared-restart"
    async with JobManager(registry_dir=str(registry)) as jm:
        rec = await jm.start(
            f"date +%s.%N >> {stamps}; exit 1",
            declared=_decl(
                "crash", restart="on-failure", max_restarts=RESTARTS, backoff_ms=BACKOFF_MS
            ),
        )
        await _until(lambda: not jm.registry.get(rec.id).running, 30)
    times = [float(line) for line in stamps.read_text().split()]
    gaps_ms = [(b - a) * 1000 for a, b in itertools.pairwise(times)]
    over = [gap - BACKOFF_MS for gap in gaps_ms]
    print(
        f"\ncrash to restart, backoff {BACKOFF_MS} ms, {len(gaps_ms)} restarts: "
        f"median {statistics.median(gaps_ms):.1f} ms, max {max(gaps_ms):.1f} ms "
        f"(over the backoff: median {statistics.median(over):.1f} ms, max {max(over):.1f} ms)"
    )
    assert len(gaps_ms) == RESTARTS
    assert min(gaps_ms) >= BACKOFF_MS
    assert max(over) <= 50, over


async def test_twenty_declared_jobs_idle(bench_root: Path) -> None:
    registry = bench_root / "declared-idle"
    async with JobManager(registry_dir=str(registry)) as jm:
        never = {"kind": "log", "target": "never", "period_ms": 1000, "timeout_ms": 1000}
        db = await jm.start("sleep 600", declared=_decl("db", ready=never | {"limit_ms": None}))
        jobs = []
        for n in range(IDLE_JOBS // 2):
            ready = {"kind": "log", "target": "up", "period_ms": 1000, "timeout_ms": 1000}
            jobs.append(
                await jm.start(
                    "echo up; sleep 600", declared=_decl(f"r{n}", ready=ready | {"limit_ms": None})
                )
            )
        depends = [{"id": db.id, "name": "db", "until": "ready"}]
        for n in range(IDLE_JOBS - len(jobs)):
            jobs.append(await jm.start("sleep 600", declared=_decl(f"w{n}", depends=depends)))
        await _until(
            lambda: all(jm.registry.get(j.id).phase in ("ready", "waiting") for j in jobs), 30
        )
        await asyncio.sleep(1.0)  # the starts' own work is over
        shims = [jm.registry.get(j.id).shim_pid for j in jobs]
        before = sum(_cpu_ticks(pid) for pid in shims)
        started = time.monotonic()
        await asyncio.sleep(IDLE_WINDOW_S)
        spent = (sum(_cpu_ticks(pid) for pid in shims) - before) / os.sysconf("SC_CLK_TCK")
        share = spent / (time.monotonic() - started) * 100
        phases = sorted(jm.registry.get(j.id).phase for j in jobs)
        print(
            f"\n{IDLE_JOBS} declared jobs idle ({phases.count('ready')} ready, "
            f"{phases.count('waiting')} waiting) for {IDLE_WINDOW_S:.0f} s: their shims "
            f"{spent * 1000:.0f} ms of CPU, {share:.3f}% of a core (limit 0.5%)"
        )
        for job in [*jobs, db]:
            await jm.kill(job.id)
    assert share <= 0.5
