"""Helpers shared by the engine benchmarks: sizes, statistics, shim CPU, tables.

The machine a benchmark runs on is shared and noisy, so every figure is printed
beside a baseline measured in the same run, and only gross sanity is asserted.

Environment (all optional):

  JOBS_TUI_BENCH_BYTES        bytes per throughput / memory / tail job (default 1G)
  JOBS_TUI_BENCH_PAIRS        measured runs per side and workload (default 6)
  JOBS_TUI_BENCH_PTY_BYTES    bytes per terminal (PTY) throughput job (default 256M)
  JOBS_TUI_BENCH_SMALL_BYTES  bytes of 80-byte flushed lines (default 32M)
  JOBS_TUI_BENCH_SMALL_PAIRS  measured runs per side for the small-writes benchmark (default 6)
  JOBS_TUI_BENCH_RUNS         latency runs (default 30)
  JOBS_TUI_BENCH_TAIL_READS   tail reads (default 50)

Sizes take a K, M or G suffix (binary): JOBS_TUI_BENCH_BYTES=64M for a quick run.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import math
import os
import re
import resource
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

YES_LINE = "0123456789" * 7 + "012345678"  # 79 characters + newline = 80-byte lines
assert len(YES_LINE) == 79

ROTATE_BYTES = 8 * MiB
_UNITS = {"": 1, "K": KiB, "M": MiB, "G": GiB}


def env_size(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMG]?)(?:i?B)?", raw, re.IGNORECASE)
    if not match:
        raise ValueError(f"{name}={raw!r}: expected a byte count such as 1G, 64M or 1048576")
    return int(float(match[1]) * _UNITS[match[2].upper()])


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


BENCH_BYTES = env_size("JOBS_TUI_BENCH_BYTES", GiB)
BENCH_PAIRS = max(1, env_int("JOBS_TUI_BENCH_PAIRS", 6))
PTY_BYTES = env_size("JOBS_TUI_BENCH_PTY_BYTES", min(BENCH_BYTES, 256 * MiB))
SETTLE_S = 0.3  # pause after os.sync() before a timed run
SMALL_BYTES = env_size("JOBS_TUI_BENCH_SMALL_BYTES", 32 * MiB)
SMALL_PAIRS = max(1, env_int("JOBS_TUI_BENCH_SMALL_PAIRS", 6))
LATENCY_RUNS = max(3, env_int("JOBS_TUI_BENCH_RUNS", 30))
TAIL_READS = max(3, env_int("JOBS_TUI_BENCH_TAIL_READS", 50))

# Filled by the throughput benchmark, read by the tail benchmark.
STATE: dict[str, Any] = {}


# -- statistics ---------------------------------------------------------------------
def median(values: list[float]) -> float:
    return statistics.median(values)


def spread(values: list[float], scale: float = 1.0, unit: str = "s") -> str:
    """`min 0.41 / med 0.44 / max 0.52 s`: what a median hides."""
    low, mid, high = (v * scale for v in (min(values), median(values), max(values)))
    return f"min {low:.3f} / med {mid:.3f} / max {high:.3f} {unit}"


def settle_disk() -> None:
    """Before every timed run: the previous run's writeback must not land on this one."""
    os.sync()
    time.sleep(SETTLE_S)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def human_bytes(n: float) -> str:
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size:
            return f"{n / size:.4g} {unit}"
    return f"{n:.0f} B"


# -- tables -------------------------------------------------------------------------
@dataclass
class Row:
    figure: str
    value: str
    baseline: str
    ratio: str
    target: str
    verdict: str


@dataclass
class Table:
    title: str
    rows: list[Row] = field(default_factory=list)

    def add(
        self,
        figure: str,
        value: str,
        baseline: str = "",
        ratio: str = "",
        target: str = "",
        ok: bool | None = None,
    ) -> None:
        verdict = "info" if ok is None else ("PASS" if ok else "MISS")
        self.rows.append(Row(figure, value, baseline, ratio, target, verdict))

    def render(self) -> str:
        head = Row("figure", "value", "baseline (same run)", "ratio", "target", "")
        rows = [head, *self.rows]
        cols = list(
            zip(
                *[(r.figure, r.value, r.baseline, r.ratio, r.target, r.verdict) for r in rows],
                strict=True,
            )
        )
        widths = [max(len(cell) for cell in col) for col in cols]
        lines = [f"== {self.title} =="]
        for index, row in enumerate(rows):
            cells = (row.figure, row.value, row.baseline, row.ratio, row.target, row.verdict)
            lines.append("  ".join(cell.ljust(w) for cell, w in zip(cells, widths, strict=True)))
            if index == 0:
                lines.append("  ".join("-" * w for w in widths))
        return "\n".join(line.rstrip() for line in lines)


TABLES: list[Table] = []


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f} on {os.cpu_count()} cpus"


def publish(table: Table) -> None:
    """Print a benchmark's summary now and keep it for the end-of-session summary."""
    table.title += f" [{load()}]"
    TABLES.append(table)
    print("\n" + table.render() + "\n", flush=True)


# -- processes ----------------------------------------------------------------------
_PR_SET_CHILD_SUBREAPER = 36


def set_subreaper(on: bool) -> bool:
    """Make orphaned descendants (the detached shims) our children, so we can reap them.

    A shim forks away from its launcher; with this set, it re-parents to the benchmark
    process instead of init, and `collect_shim` can read its exact CPU time as a zombie.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0
    except Exception:
        return False


def reap_leftovers() -> int:
    reaped = 0
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped += 1


def own_cpu_s(pid: int) -> float | None:
    """CPU time of `pid` itself (not its reaped children), exact where schedstat exists."""
    try:
        with open(f"/proc/{pid}/schedstat") as fh:
            return int(fh.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def caller_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class ShimExit:
    cpu_s: float  # the shim's own CPU over its whole life (user + system)
    maxrss_kib: int | None  # wait4's ru_maxrss: max over the shim and its reaped children
    exact: bool  # read from the zombie; False = last sample before it vanished


async def collect_shim(pid: int, timeout: float = 60.0) -> ShimExit:
    """Wait for the shim to exit and return its CPU time; reaps it if it is our child."""
    deadline = time.monotonic() + timeout
    try:
        while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"shim {pid} did not exit within {timeout}s")
            await asyncio.sleep(0.001)
    except ChildProcessError:
        return await _collect_foreign(pid, deadline)
    cpu = own_cpu_s(pid)
    _, _, usage = os.wait4(pid, 0)
    if cpu is None:  # no /proc: fall back to the rusage (includes reaped children)
        cpu = usage.ru_utime + usage.ru_stime
    return ShimExit(cpu, usage.ru_maxrss, True)


async def _collect_foreign(pid: int, deadline: float) -> ShimExit:
    """Not our child (no subreaper): sample until the process is gone."""
    last = 0.0
    while time.monotonic() < deadline:
        sample = own_cpu_s(pid)
        if sample is None:
            return ShimExit(last, None, False)
        last = sample
        await asyncio.sleep(0.001)
    raise TimeoutError(f"shim {pid} did not exit")


def read_status_kib(pid: int) -> dict[str, int]:
    """VmRSS / VmHWM (KiB) from /proc/<pid>/status; empty once the process is gone."""
    found: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    key, value = line.split(":", 1)
                    found[key] = int(value.split()[0])
    except OSError:
        pass
    return found


def segment_sizes(live: str) -> tuple[int, int]:
    sizes = []
    for path in (live, live + ".1"):
        try:
            sizes.append(os.path.getsize(path))
        except FileNotFoundError:
            sizes.append(0)
    return sizes[0], sizes[1]


def check_segments(live: str, total: int, max_bytes: int) -> tuple[int, int]:
    """The two retained segments must hold a suffix of `total` bytes cut at `max_bytes`."""
    live_size, prev_size = segment_sizes(live)
    assert live_size <= max_bytes, (live_size, max_bytes)
    if total > max_bytes:
        assert prev_size == max_bytes, (prev_size, max_bytes)
    kept = live_size + prev_size
    assert kept <= total and (total - kept) % max_bytes == 0, (live_size, prev_size, total)
    assert kept >= min(total, max_bytes), (live_size, prev_size, total)
    return live_size, prev_size


def remove_logs(live: str) -> None:
    for path in (live, live + ".1"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


# -- the engine side ----------------------------------------------------------------
@dataclass
class EngineRun:
    record: Any  # the finished JobRecord
    total_s: float  # start() called -> job-finished event
    start_s: float  # start() called -> returned (the job is running)
    job_s: float  # start() returned -> job-finished event
    caller_cpu_s: float  # this process's CPU, start() called -> wait() returned
    shim: ShimExit
    started_status: str  # the record's status as start() returned it


class EngineBench:
    """A JobManager plus a subscriber that timestamps each job's finish as it is published."""

    def __init__(self, jm: Any) -> None:
        self.jm = jm
        self.finished_perf: dict[str, float] = {}
        self.finished_ns: dict[str, int] = {}
        self.unsubscribe = jm.subscribe(self._on_event)

    def _on_event(self, event: Any) -> None:
        if event.kind == "job-finished":
            self.finished_perf.setdefault(event.id, time.perf_counter())
            self.finished_ns.setdefault(event.id, time.time_ns())

    async def run(
        self,
        command: str,
        during: Callable[[Any], Awaitable[Any]] | None = None,
        timeout_s: float = 900.0,
        *,
        tty: bool = False,
    ) -> tuple[EngineRun, Any]:
        """Start `command`, wait for it, collect its shim; returns the run and `during`'s result."""
        cpu0 = caller_cpu_s()
        t0 = time.perf_counter()
        record = await self.jm.start(command, tty=tty)
        t_started = time.perf_counter()
        started_status = record.status.value  # a very short job may be over already
        task = asyncio.get_running_loop().create_task(during(record)) if during else None
        record = await self.jm.wait(record.id, timeout_ms=int(timeout_s * 1000))
        cpu1 = caller_cpu_s()
        extra = await task if task else None
        shim = await collect_shim(record.shim_pid)
        t_done = self.finished_perf.get(record.id)
        assert t_done is not None, f"no job-finished event for {record.id}: {record}"
        run = EngineRun(
            record=record,
            total_s=t_done - t0,
            start_s=t_started - t0,
            job_s=t_done - t_started,
            caller_cpu_s=cpu1 - cpu0,
            shim=shim,
            started_status=started_status,
        )
        return run, extra


def assert_exited_ok(record: Any) -> None:
    assert record.status.value == "exited" and record.exit_code == 0, (
        f"{record.id}: status={record.status.value} exit_code={record.exit_code} "
        f"signal={record.signal}"
    )
