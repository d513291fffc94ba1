"""`jobs-tui mcp` benchmarks (issue 12), driven by the SDK's stdio client. Run by hand:

    python -m pytest tests/bench/test_mcp_bench.py -s -p no:cacheprovider

- `job_status` round trip over stdio (median; target < 5 ms);
- `job_start` -> result against the engine's own `JobManager.start()` in this process,
  interleaved in the same run (target < 2x);
- finish notification latency: the job prints the wall time as its last act, the client
  notes when the `notifications/message` arrives (median; target < 50 ms);
- an idle server with 20 running jobs: its CPU over 10 s (target < 0.5% of a core).

Only correctness is asserted, never timing. JOBS_TUI_BENCH_MCP_RUNS sets the round trips
(default 200), JOBS_TUI_BENCH_MCP_STARTS the start pairs and finish samples (default 20),
JOBS_TUI_BENCH_MCP_IDLE_S the idle window (default 10).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import anyio
import psutil
import pytest
from benchlib import env_int, median, p95
from mcp import ClientSession, StdioServerParameters, stdio_client

from jobs_tui.engine import JobManager

RUNS = max(3, env_int("JOBS_TUI_BENCH_MCP_RUNS", 200))
STARTS = max(2, env_int("JOBS_TUI_BENCH_MCP_STARTS", 20))
IDLE_S = max(1, env_int("JOBS_TUI_BENCH_MCP_IDLE_S", 10))
IDLE_JOBS = 20

pytestmark = pytest.mark.timeout(1800)


def _params(root: Path, name: str) -> StdioServerParameters:
    project = root / f"{name}-project"
    project.mkdir(exist_ok=True)
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "jobs_tui.app.cli", "mcp", "--registry-dir", str(root / f"{name}-reg")],
        env=dict(os.environ),
        cwd=str(project),
    )


def _ms(values: list[float]) -> str:
    return f"median {median(values) * 1000:7.2f} ms  p95 {p95(values) * 1000:7.2f} ms"


async def test_mcp_costs(bench_root: Path) -> None:
    arrivals: list[float] = []

    async def on_log(params) -> None:
        arrivals.append(time.time())

    async with (
        stdio_client(_params(bench_root, "mcp")) as (read, write),
        ClientSession(read, write, logging_callback=on_log) as session,
    ):
        await session.initialize()
        await session.list_tools()
        first = await session.call_tool("job_start", {"command": "true"})
        assert not first.is_error
        job_id = first.structured_content["job"]["id"]
        read = await session.read_resource(f"jobs://job/{job_id}")  # the full record
        server_pid = int(json.loads(read.contents[0].text)["job"]["sessionId"].split("-")[1])

        trips = []
        for _ in range(RUNS):
            began = time.perf_counter()
            result = await session.call_tool("job_status", {"id": "j1"})
            trips.append(time.perf_counter() - began)
            assert not result.is_error
        print(f"\n[mcp] job_status round trip x{RUNS}: {_ms(trips)}  (target < 5 ms)")

        tool_starts, engine_starts = [], []
        project = bench_root / "engine-project"
        project.mkdir(exist_ok=True)
        async with JobManager(cwd=project, registry_dir=bench_root / "engine-reg") as jm:
            for index in range(STARTS):  # alternate which goes first
                for side in ("tool", "engine") if index % 2 else ("engine", "tool"):
                    began = time.perf_counter()
                    if side == "tool":
                        result = await session.call_tool("job_start", {"command": "true"})
                        tool_starts.append(time.perf_counter() - began)
                        assert not result.is_error
                    else:
                        await jm.start("true")
                        engine_starts.append(time.perf_counter() - began)
        ratio = median(tool_starts) / median(engine_starts)
        print(f"[mcp] job_start -> result x{STARTS}: {_ms(tool_starts)}")
        print(f"[mcp] JobManager.start() x{STARTS}: {_ms(engine_starts)}  ratio {ratio:.2f}x")

        await anyio.sleep(1)
        arrivals.clear()
        latencies = []
        for _ in range(STARTS):
            seen = len(arrivals)
            result = await session.call_tool("job_start", {"command": "sleep 0.05; date +%s.%N"})
            job_id = result.structured_content["job"]["id"]
            with anyio.fail_after(30):
                while len(arrivals) == seen:
                    await anyio.sleep(0.001)
            logs = await session.call_tool("job_logs", {"id": job_id})
            printed = float(logs.structured_content["logs"].strip().splitlines()[-1])
            latencies.append(arrivals[-1] - printed)
        print(f"[mcp] finish notification after exit x{STARTS}: {_ms(latencies)} (< 50 ms)")

        for _ in range(IDLE_JOBS):
            assert not (await session.call_tool("job_start", {"command": "sleep 600"})).is_error
        await anyio.sleep(2)
        server = psutil.Process(server_pid)
        before = sum(server.cpu_times()[:2])
        await anyio.sleep(IDLE_S)
        used = sum(server.cpu_times()[:2]) - before
        print(
            f"[mcp] idle server, {IDLE_JOBS} running jobs, {IDLE_S} s: "
            f"{used / IDLE_S * 100:.2f}% of a core (target < 0.5%)"
        )
        cleared = await session.call_tool("job_clear", {"all": True})
        assert not cleared.is_error
