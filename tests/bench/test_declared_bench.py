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


LEVELS, PER_LEVEL, READY_AFTER_S = 5, 4, 0.2
LEVEL_SLACK_MS = 100


def _stack_text(levels: int) -> str:
    """`levels` levels of PER_LEVEL jobs, each ready on a log line READY_AFTER_S after it
    starts; every job of a level depends on every job of the level before (ready)."""
    lines = []
    for level in range(levels):
        for n in range(PER_LEVEL):
            lines += [
                f"[jobs.l{level}n{n}]",
                f'command = "sleep {READY_AFTER_S}; echo listening; sleep 600"',
                'ready = { log = "listening" }',
                "kill_grace_ms = 1000",
            ]
            if level:
                deps = ", ".join(f'l{level - 1}n{m} = "ready"' for m in range(PER_LEVEL))
                lines.append(f"depends_on = {{ {deps} }}")
    return "\n".join(lines) + "\n"


async def _up_to_all_ready(root: Path, levels: int) -> float:
    """Seconds from `up` to the last job's `<id>.ready` (its shim's own clock)."""
    from jobs_tui.engine.declared import load_stack

    root.mkdir(parents=True)
    (root / "jobs-tui.toml").write_text(_stack_text(levels))
    stack = load_stack(root / "jobs-tui.toml")
    async with JobManager(registry_dir=str(root / "registry")) as jm:
        began = time.time()
        result = await jm.up(stack, detached=True)
        assert not result.failed, result.failed
        ids = [r.id for r in result.started]
        done = await jm.wait_many(ids, ready=True, timeout_ms=60_000)
        assert done.reason == "ready"
        last = max(_ready_at(jm.paths.ready(i)) for i in ids)
        await jm.down(stack)
    return last / 1000 - began


def _ready_at(path: Path) -> int:
    import json

    return int(json.loads(path.read_text())["at"])


async def test_up_of_twenty_jobs_in_five_levels(bench_root: Path) -> None:
    # The baseline, in the same run: one level alone (its own ready time and the cost of
    # one level's start); the target: the levels' own ready times plus 100 ms a level.
    one = statistics.median([await _up_to_all_ready(bench_root / f"up1-{n}", 1) for n in range(3)])
    runs = [await _up_to_all_ready(bench_root / f"up5-{n}", LEVELS) for n in range(3)]
    whole = statistics.median(runs)
    target = LEVELS * (READY_AFTER_S + LEVEL_SLACK_MS / 1000)
    per_level_ms = (whole / LEVELS - READY_AFTER_S) * 1000
    print(
        f"\nup of {LEVELS * PER_LEVEL} declared jobs in {LEVELS} levels, each ready "
        f"{READY_AFTER_S:.1f} s after it starts: all ready {whole * 1000:.0f} ms after up "
        f"(median of {len(runs)}; {per_level_ms:.0f} ms a level over its own ready time, "
        f"limit {LEVEL_SLACK_MS}); one level alone {one * 1000:.0f} ms; "
        f"ratio to the target {whole / target:.2f}x (<= 1.00)"
    )
    assert whole <= target
