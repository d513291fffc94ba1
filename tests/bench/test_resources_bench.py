"""What sampling jobs' CPU, memory, processes and ports costs (issue 11.4).

Run by hand (not part of the default test run):

    python -m pytest tests/bench/test_resources_bench.py -s -p no:cacheprovider

50 running jobs, each a small tree (`sleep 60 & sleep 60` under its sh and shim), sampled
as `JobManager.usage` does at 1 Hz; the CPU of one pass (this thread's, `thread_time`)
is the cost, beside a bare `psutil.process_iter` pass and the psutil edge measured in the
same run. Environment: JOBS_TUI_BENCH_USAGE_JOBS (default 50), JOBS_TUI_BENCH_USAGE_PASSES
(default 20), JOBS_TUI_BENCH_USAGE_SECONDS (passes at 1 Hz, default 12).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest
from benchlib import Table, env_int, median, publish

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.procs import proctable as pt
from jobs_tui.engine.procs import resources as res

pytestmark = pytest.mark.timeout(600)

JOBS = max(1, env_int("JOBS_TUI_BENCH_USAGE_JOBS", 50))
PASSES = max(3, env_int("JOBS_TUI_BENCH_USAGE_PASSES", 20))
HZ_PASSES = max(3, env_int("JOBS_TUI_BENCH_USAGE_SECONDS", 12))
BUDGET = 2.0  # % of one core at 1 Hz
SERVER = (
    f'{sys.executable} -c "import socket, time; s = socket.socket(); '
    "s.bind(('127.0.0.1', 0)); s.listen(); print(s.getsockname()[1], flush=True); "
    'time.sleep(120)"'
)


def cpu_ms(fn: Callable[[], object], passes: int = PASSES) -> tuple[float, float]:
    """(median CPU ms, median wall ms) of `fn`, one warm-up first; 1.1 s apart would be the
    real cadence, but what a pass costs does not depend on the pause between passes."""
    fn()
    cpus, walls = [], []
    for _ in range(passes):
        c0, w0 = time.thread_time(), time.perf_counter()
        fn()
        cpus.append((time.thread_time() - c0) * 1000)
        walls.append((time.perf_counter() - w0) * 1000)
    return median(cpus), median(walls)


def fmt(ms: tuple[float, float]) -> str:
    return f"{ms[0]:.2f} ms cpu ({ms[1]:.2f} wall)"


async def test_sampling_fifty_jobs_costs_under_two_percent_of_a_core(bench_root: Path):
    jm = JobManager(
        cwd=str(bench_root), registry_dir=str(bench_root / "reg-usage"), config=Config()
    )
    async with jm:
        records = [await jm.start("sleep 60 & sleep 60") for _ in range(JOBS)]
        await asyncio.sleep(0.5)
        running = [r for r in jm.jobs() if r.running]
        sampler = res.UsageSampler()
        found = sampler.sample_now(running)
        assert len(found) == JOBS and all(u.process_count >= 2 for u in found.values())
        table_size = len(psutil.pids())
        procs_in_jobs = sum(u.process_count for u in found.values())

        ours = cpu_ms(lambda: sampler.sample_now(running))
        at_1hz = []  # the real cadence: one pass a second, a full fd read every 10 s included
        for _ in range(HZ_PASSES):
            c0 = time.thread_time()
            sampler.sample_now(running)
            at_1hz.append((time.thread_time() - c0) * 1000)
            await asyncio.sleep(1.0)
        bare = cpu_ms(lambda: list(psutil.process_iter()))
        ppid = cpu_ms(lambda: [p.info for p in psutil.process_iter(["pid", "ppid"])])
        scan_proc = cpu_ms(pt.scan_proc)
        scan_psutil = cpu_ms(pt.scan_psutil)
        net_psutil = cpu_ms(lambda: psutil.net_connections(kind="inet"))
        net_diag = cpu_ms(pt.listening_inodes)
        net_table = cpu_ms(pt.listening_table)
        psutil_edge = res.UsageSampler(
            scan=pt.scan_psutil, listening=lambda rows: pt.listening_psutil(r.pid for r in rows)
        )
        psutil_sample = cpu_ms(lambda: psutil_edge.sample_now(running))
        await jm.usage()  # the manager's path (to_thread, cache): a rate after two passes
        await asyncio.sleep(1.05)
        via_usage = await jm.usage()
        assert all(v.cpu_percent is not None and v.cpu_percent < 5 for v in via_usage.values())

        server = await jm.start(SERVER)
        for _ in range(200):
            if (jm.find(server.id) or server).last_line.isdigit():
                break
            await asyncio.sleep(0.05)
        with_server = [r for r in jm.jobs() if r.running]
        listened = sampler.sample_now(with_server)
        assert listened[server.id].ports, listened[server.id]
        ours_listening = cpu_ms(lambda: sampler.sample_now(with_server))

        hz_ms = sum(at_1hz) / len(at_1hz)
        percent = hz_ms / 10  # ms per 1000 ms, as a percentage of one core
        table = Table(
            f"usage sampling: {JOBS} jobs ({procs_in_jobs} processes in their trees), "
            f"{table_size} processes on the machine, 1 Hz"
        )
        table.add(
            f"sampling every job at 1 Hz for {HZ_PASSES} s",
            f"{percent:.2f}% of a core ({hz_ms:.2f} ms a pass)",
            f"bare process_iter() {fmt(bare)}",
            f"{hz_ms / max(bare[0], 1e-6):.0f}x",
            f"< {BUDGET:.0f}% of a core",
            percent < BUDGET,
        )
        table.add("  one pass, back to back (median)", fmt(ours))
        table.add("  its process pass (scan_proc)", fmt(scan_proc))
        table.add(
            "  one job listening (+ sockets table)",
            fmt(ours_listening),
            f"listening sockets alone {fmt(net_diag)}",
        )
        table.add("  (sock_diag; /proc/net/{tcp,udp}{,6} instead)", fmt(net_table))
        table.add("the same through psutil (attrs pass)", fmt(psutil_sample))
        table.add("  process_iter(pid, ppid) only", fmt(ppid))
        table.add("  scan_psutil (5 attrs + pgid/sid)", fmt(scan_psutil))
        table.add("  psutil.net_connections('inet')", fmt(net_psutil))
        publish(table)
        await asyncio.gather(*(jm.kill(r.id, "SIGKILL") for r in [*records, server]))
