"""Issue 11 benchmarks: wait --until latency and cost, throughput with the time index on/off,
and the time index's size on a 1 GiB job.

Run by hand, on a quiet-ish machine (load < 3), never in the default run:

    python -m pytest tests/bench/test_issue11_bench.py -s -p no:cacheprovider

Every figure is printed beside a baseline measured in the same run (PASS/MISS against
the target); only sanity is asserted (exit codes, byte counts, sizes), never timing.
`JOBS_TUI_BENCH_BYTES=64M` shrinks the throughput runs; `JOBS_TUI_BENCH_RUNS` sets the
number of matches timed per side (default 30).
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from benchlib import (
    BENCH_BYTES,
    BENCH_PAIRS,
    LATENCY_RUNS,
    ROTATE_BYTES,
    YES_LINE,
    EngineBench,
    MiB,
    Table,
    assert_exited_ok,
    human_bytes,
    median,
    p95,
    publish,
    remove_logs,
    settle_disk,
    spread,
)

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.session import waiting
from jobs_tui.engine.shim.timeindex import ENV_BENCH_OFF, MAX_FILE_BYTES, parse

pytestmark = pytest.mark.timeout(3600)

GiB = 1 << 30
PY = sys.executable

# 10,000 lines/s (100 lines every 10 ms); every 0.4-0.6 s one `MATCH <n> <time_ns>` line,
# stamped just before it is written; then quiet until killed.
BUSY = """
import random, sys, time
w = sys.stdout.write
runs = int(sys.argv[1])
start = time.monotonic()
n = seq = 0
mark = start + 1.0
while seq < runs:
    target = start + n / 10000
    now = time.monotonic()
    if now < target:
        time.sleep(target - now)
    w("".join("%08d a busy job's ordinary line of output, nothing to see\\n" % (n + i)
              for i in range(100)))
    n += 100
    if now >= mark:
        w("MATCH %d %d\\n" % (seq, time.time_ns()))
        seq += 1
        mark = now + 0.4 + random.random() * 0.2
    sys.stdout.flush()
time.sleep(600)
"""


class _NoInotify:
    """The baseline: waits wake only on the shim's output events and a 0.25 s poll."""

    active = False

    def __init__(self, wake) -> None:
        pass

    def add(self, path: str) -> bool:
        return False

    def close(self) -> None:
        pass


def manager(root: Path, name: str, **config) -> JobManager:
    return JobManager(
        cwd=str(root),
        registry_dir=str(root / f"reg-{name}"),
        config=Config(**config),
    )


def cpu_s() -> float:
    return time.process_time()


# -- a. wait --until: latency on a job printing 10,000 lines/s -------------------------
async def test_wait_until_latency_and_cost(bench_root: Path) -> None:
    script = bench_root / "busy.py"
    script.write_text(BUSY)
    runs = LATENCY_RUNS * 2  # interleaved: even ones inotify (engine), odd ones baseline
    sides: dict[str, list[float]] = {"inotify": [], "events": []}
    cpu: dict[str, list[float]] = {"inotify": [], "events": []}
    real = waiting.LogWatch
    print(f"\n[wait-until] {runs} matches on a job printing 10,000 lines/s")
    async with manager(bench_root, "latency", max_log_bytes=ROTATE_BYTES) as jm:
        rec = await jm.start(f"{PY} {shlex.quote(str(script))} {runs}")
        try:
            for i in range(runs):
                side = "inotify" if i % 2 == 0 else "events"
                waiting.LogWatch = real if side == "inotify" else _NoInotify
                c0, t0 = cpu_s(), time.monotonic()
                result = await jm.wait_many([rec.id], until=f"^MATCH {i} ", timeout_ms=20_000)
                found_ns = time.time_ns()
                c1, t1 = cpu_s(), time.monotonic()
                assert result.reason == "match", (i, result.reason)
                written_ns = int(result.match.line.split()[2])
                sides[side].append((found_ns - written_ns) / 1e6)
                cpu[side].append(100 * (c1 - c0) / (t1 - t0))
        finally:
            waiting.LogWatch = real
            await jm.kill(rec.id, "SIGKILL")

        # b. the cost of waiting on a quiet job, beside the same session idle
        quiet = await jm.start("sleep 600")
        c0, t0 = cpu_s(), time.monotonic()
        await asyncio.sleep(10)
        idle = 100 * (cpu_s() - c0) / (time.monotonic() - t0)
        c0, t0 = cpu_s(), time.monotonic()
        result = await jm.wait_many([quiet.id], until="never", timeout_ms=10_000)
        waited = 100 * (cpu_s() - c0) / (time.monotonic() - t0)
        assert result.reason == "timeout"
        await jm.kill(quiet.id, "SIGKILL")

    ms = sides["inotify"]
    base = sides["events"]
    print(f"  inotify  {spread(ms, 1, 'ms')}\n  events   {spread(base, 1, 'ms')}")
    table = Table("a. wait --until on a job printing 10,000 lines/s (line written -> returned)")
    table.add(
        "detection latency, median (p95)",
        f"{median(ms):.1f} ms ({p95(ms):.1f} ms)",
        f"{median(base):.1f} ms ({p95(base):.1f} ms) without inotify (shim events, 0.25 s poll)",
        f"{median(ms) / median(base):.2f}x",
        "< 50 ms median",
        median(ms) < 50,
    )
    table.add(
        "session CPU while waiting on it (reads + matching)",
        f"{median(cpu['inotify']):.1f}% of a core",
        f"{median(cpu['events']):.1f}% without inotify",
        target="(info)",
    )
    table.add(
        "session CPU waiting 10 s on a quiet job",
        f"{waited:.2f}% of a core",
        f"{idle:.2f}% the same session idle 10 s",
        f"+{waited - idle:.2f} points",
        "< 5%",
        waited < 5,
    )
    publish(table)


# -- b. throughput with the time index on and off ----------------------------------------
N = BENCH_BYTES
WORKLOADS = {
    "zero": f"head -c {N} /dev/zero",
    "yes": f"yes {YES_LINE} | head -c {N}",
}


def timed_shell(command: str, path: Path, expected: int) -> float:
    settle_disk()
    t0 = time.perf_counter()
    proc = subprocess.run(["/bin/sh", "-c", f"{command} > {shlex.quote(str(path))}"], check=False)
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0 and path.stat().st_size == expected
    path.unlink()
    return elapsed


async def timed_engine(bench: EngineBench, command: str, index_on: bool) -> tuple[float, float]:
    if index_on:
        os.environ.pop(ENV_BENCH_OFF, None)
    else:
        os.environ[ENV_BENCH_OFF] = "1"  # inherited by the shim this start launches
    try:
        settle_disk()
        run, _ = await bench.run(command)
    finally:
        os.environ.pop(ENV_BENCH_OFF, None)
    assert_exited_ok(run.record)
    assert run.record.log_bytes == N
    times = Path(run.record.log_path + ".time")
    assert times.exists() == index_on
    remove_logs(run.record.log_path)
    times.unlink(missing_ok=True)
    return run.total_s, run.shim.cpu_s


@pytest.mark.parametrize("workload", list(WORKLOADS))
async def test_throughput_with_the_time_index_on_and_off(workload: str, bench_root: Path) -> None:
    command = WORKLOADS[workload]
    out = bench_root / f"shell-{workload}.out"
    on: list[float] = []
    off: list[float] = []
    cpu_on: list[float] = []
    cpu_off: list[float] = []
    shells: list[float] = []
    print(f"\n[time-index:{workload}] {human_bytes(N)} x {BENCH_PAIRS} per side: {command}")
    async with manager(bench_root, f"ti-{workload}", max_log_bytes=ROTATE_BYTES) as jm:
        bench = EngineBench(jm)
        for index in range(BENCH_PAIRS + 1):  # index 0 warms every side up
            order = [True, False] if index % 2 else [False, True]
            got = {flag: await timed_engine(bench, command, flag) for flag in order}
            shell_s = timed_shell(command, out, N)
            if index == 0:
                continue
            on.append(got[True][0])
            off.append(got[False][0])
            cpu_on.append(got[True][1])
            cpu_off.append(got[False][1])
            shells.append(shell_s)
            print(
                f"  run {index}: index on {got[True][0]:6.3f}s  off {got[False][0]:6.3f}s  "
                f"sh {shell_s:6.3f}s   shim CPU on {got[True][1]:.3f}s off {got[False][1]:.3f}s"
            )
    ratio = median(off) / median(on)
    vs_shell = median(shells) / median(on)
    table = Table(f"b. throughput, {workload}: {human_bytes(N)}, 8 MiB rotation, time index")
    table.add(
        "index on (start() -> job-finished)",
        f"{N / MiB / median(on):.0f} MiB/s",
        f"{N / MiB / median(off):.0f} MiB/s index off",
        f"{ratio:.2f}x",
        ">= 0.95x (within 5%)",
        ratio >= 0.95,
    )
    table.add(
        "index on vs the shell",
        f"{N / MiB / median(on):.0f} MiB/s",
        f"{N / MiB / median(shells):.0f} MiB/s sh -c 'CMD > file'",
        f"{vs_shell:.2f}x",
        ">= 0.8x",
        vs_shell >= 0.8,
    )
    table.add(
        "shim CPU per GiB, index on (load-independent)",
        f"{median(cpu_on) / (N / GiB) * 1000:.0f} ms",
        f"{median(cpu_off) / (N / GiB) * 1000:.0f} ms index off",
        f"{median(cpu_on) / median(cpu_off):.2f}x",
        "(info)",
    )
    table.add("index on seconds", spread(on))
    table.add("index off seconds", spread(off))
    table.add("shell seconds", spread(shells))
    publish(table)


# -- c. the time index stays bounded on a 1 GiB job --------------------------------------
async def test_the_time_index_stays_bounded_on_a_1_gib_job(bench_root: Path) -> None:
    """1 GiB of lines, written over ~20 s (so hundreds of index records), 8 MiB rotation."""
    chunk = 1 << 20
    command = (
        f"{PY} -c \"import sys, time; b = b'{YES_LINE}\\\\n' * ({chunk} // 80)\n"
        f'for i in range({GiB} // len(b) + 1): sys.stdout.buffer.write(b); time.sleep(0.015)"'
    )
    async with manager(bench_root, "bounded", max_log_bytes=ROTATE_BYTES) as jm:
        bench = EngineBench(jm)
        run, _ = await bench.run(command)
        record = run.record
        assert_exited_ok(record)
        assert record.log_bytes >= GiB
        times_path = Path(record.log_path + ".time")
        size = times_path.stat().st_size
        records = parse(times_path.read_bytes())
        retained_start = record.log_bytes - sum(
            Path(p).stat().st_size for p in (record.log_path, record.log_path + ".1")
        )
        remove_logs(record.log_path)
    table = Table("c. time index on a 1 GiB job (8 MiB rotation)")
    table.add(
        "index size after 1 GiB",
        f"{size} bytes, {len(records)} records",
        f"{MAX_FILE_BYTES} bytes bound",
        target="<= bound",
        ok=size <= MAX_FILE_BYTES,
    )
    table.add(
        "first record dates the retained start",
        f"offset {records[0][0]}",
        f"retained from {retained_start}",
        target="<= retained start",
        ok=records[0][0] <= retained_start,
    )
    table.add("job seconds", f"{run.job_s:.1f} s")
    publish(table)
    assert size <= MAX_FILE_BYTES and records[0][0] <= retained_start
