"""Registry benchmarks: load/merge/reconcile of 1,000 records, start latency, one write.

Run: python -m pytest tests/bench/test_registry_bench.py -s -p no:cacheprovider
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import benchlib
from benchlib import Table, median, publish

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.registry.paths import RegistryPaths

SESSIONS = 20
RECORDS = 1000
RUNS = benchlib.env_int("JOBS_TUI_BENCH_REGISTRY_RUNS", 15)


def _record(n: int, session: str, directory: Path, running: bool) -> dict:
    now = int(time.time() * 1000)
    return {
        "id": f"j{n}",
        "label": f"build step {n}",
        "command": f"make target-{n} && ./run-tests --shard {n % 7}",
        "cwd": "/work/project",
        "pid": 999_999 if running else None,  # a dead pid: reconcile must settle it
        "status": "running" if running else ("exited" if n % 3 else "failed"),
        "exitCode": None if running else (0 if n % 3 else 2),
        "signal": None,
        "startedAt": now - 60_000 + n,
        "finishedAt": None if running else now - 1000 + n,
        "logPath": str(directory / f"j{n}.log"),
        "detached": False,
        "wake": False,
        "sessionId": session,
        "seen": n % 2 == 0,
        "lastLine": f"ok {n} tests passed in {n % 97}.{n % 10}s",
        "statusPath": str(directory / f"j{n}.status"),
        "startToken": None,
    }


def populate(directory: Path) -> None:
    """20 live peer sessions (this process's pid, fresh heartbeat) holding 1,000 records."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    paths = RegistryPaths(directory)
    per = RECORDS // SESSIONS
    for s in range(SESSIONS):
        session = f"peer-{s}"
        jobs = [_record(s * per + i + 1, session, directory, running=i == 0) for i in range(per)]
        data = {"version": 1, "sessionId": session, "counter": (s + 1) * per + 1, "jobs": jobs}
        paths.registry_file(session).write_text(json.dumps(data))
        marker = {"sessionId": session, "pid": os.getpid(), "updatedAt": int(time.time() * 1000)}
        paths.marker_file(session).write_text(json.dumps(marker))


async def _open_close(directory: Path) -> float:
    started = time.perf_counter()
    jm = JobManager(registry_dir=directory, config=Config())
    await jm.open()
    elapsed = time.perf_counter() - started
    assert len(jm.jobs()) == RECORDS
    await jm.close()
    return elapsed


async def _start_latency(directory: Path, runs: int) -> list[float]:
    samples = []
    async with JobManager(registry_dir=directory, config=Config(max_jobs=500)) as jm:
        for _ in range(runs):
            started = time.perf_counter()
            rec = await jm.start("true")
            samples.append(time.perf_counter() - started)
            await jm.wait(rec.id, 10_000)
    return samples


async def test_registry_load_start_and_write(bench_root: Path) -> None:
    table = Table("registry")
    full = bench_root / "registry-full"
    populate(full)
    loads = [await _open_close(full) for _ in range(RUNS)]
    table.add(
        f"open(): load, merge, reconcile {SESSIONS} files / {RECORDS} records",
        f"{median(loads) * 1000:.1f} ms",
        target="< 200 ms",
        ok=median(loads) < 0.2,
    )

    empty = bench_root / "registry-empty"
    full_starts: list[float] = []
    empty_starts: list[float] = []
    for _ in range(3):  # alternate, so drift on a shared machine hits both sides
        empty_starts += await _start_latency(empty, RUNS)
        full_starts += await _start_latency(full, RUNS)
    ratio = median(full_starts) / median(empty_starts)
    table.add(
        f"start() with {RECORDS} records present",
        f"{median(full_starts) * 1000:.1f} ms",
        f"{median(empty_starts) * 1000:.1f} ms empty dir",
        f"{ratio:.2f}x",
        "<= 1.5x",
        ratio <= 1.5,
    )

    async with JobManager(registry_dir=bench_root / "registry-write") as jm:
        for _ in range(20):
            await jm.wait((await jm.start("true")).id, 10_000)
        writes = []
        for _ in range(200):
            started = time.perf_counter()
            jm.registry.persist()
            writes.append(time.perf_counter() - started)
    table.add(
        "one registry write (20 records, fsync + rename + dir fsync)",
        f"{median(writes) * 1000:.2f} ms",
        target="< 5 ms",
        ok=median(writes) < 0.005,
    )
    publish(table)
