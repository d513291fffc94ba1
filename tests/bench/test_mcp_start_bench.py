"""How soon `jobs-tui mcp` answers `initialize` (issue 23 E), beside an interpreter start.

Run by hand (not part of the default test run):

    python -m pytest tests/bench/test_mcp_start_bench.py -s -p no:cacheprovider

Each run spawns the server as a client does (the `jobs-tui` console script beside the
interpreter, stdin and stdout pipes), writes `initialize` at once and times spawn -> the
answer's line; then `notifications/initialized` and `tools/list`, timed from spawn to its
answer; then closes stdin. Runs are interleaved with `python -c pass` (the same
interpreter, spawned the same way), so the ratio compares runs made under the same load.
Targets: the answer within 300 ms, and within 5x `python -c pass`. Only the answers are
asserted, never timing. JOBS_TUI_BENCH_MCP_START_RUNS sets the runs (default 20).

A/B against other code: JOBS_TUI_BENCH_MCP_START_AB=DIR, a directory holding a
`jobs_tui` package (see test_cli_bench.py), is timed interleaved too, through
`python -c "...main()"` with DIR first on sys.path.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from benchlib import Table, env_int, median, p95, publish
from test_cli_bench import entry, fresh_bytecode

RUNS = max(3, env_int("JOBS_TUI_BENCH_MCP_START_RUNS", 20))
TARGET_MS = 300.0
TARGET_RATIO = 5.0
AB_DIR = os.environ.get("JOBS_TUI_BENCH_MCP_START_AB", "")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {"roots": {}, "elicitation": {}},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}

pytestmark = pytest.mark.timeout(1800)


def _line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


class Reader:
    """Lines of a pipe, read with a deadline (a silent server fails the run, never hangs)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def answer(self, request_id: int, timeout: float = 60.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                message = json.loads(line)
                if message.get("id") == request_id:
                    return message
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no answer to {request_id} in {timeout}s"
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if ready:
                chunk = os.read(self.fd, 1 << 16)
                assert chunk, f"the server closed stdout before answering {request_id}"
                self.buffer += chunk


def serve_once(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(spawn -> initialize answer, spawn -> tools/list answer), in ms."""
    began = time.perf_counter()
    server = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(_line(INITIALIZE))
        server.stdin.flush()
        reader = Reader(server.stdout.fileno())
        answer = reader.answer(0)
        initialized = time.perf_counter()
        assert answer["result"]["serverInfo"]["name"] == "jobs-tui", answer
        server.stdin.write(_line(INITIALIZED) + _line(TOOLS_LIST))
        server.stdin.flush()
        tools = reader.answer(1)
        listed = time.perf_counter()
        assert len(tools["result"]["tools"]) >= 5, tools
        server.stdin.close()
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stdout.close()
    return (initialized - began) * 1000, (listed - began) * 1000


def python_once(env: dict[str, str], cwd: str) -> float:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", "pass"], stdin=subprocess.PIPE, env=env, cwd=cwd, timeout=60
    )
    assert done.returncode == 0
    return (time.perf_counter() - began) * 1000


def test_initialize_answer_against_an_interpreter_start(bench_root: Path) -> None:
    fresh_bytecode()
    cli, name = entry()
    env = dict(os.environ, JOBS_TUI_CONFIG=str(bench_root / "no-config.toml"))
    cwd = str(bench_root)
    sides = {name: [*cli, "mcp", "--registry-dir", str(bench_root / "start-reg")]}
    if AB_DIR:
        boot = "import sys; sys.path.insert(0, sys.argv.pop(1)); "
        boot += "from jobs_tui.app.cli import main; "
        sides["other code"] = [
            sys.executable,
            "-c",
            boot + "sys.exit(main())",
            AB_DIR,
            "mcp",
            "--registry-dir",
            str(bench_root / "start-reg-ab"),
        ]
    for argv in sides.values():  # warm the file cache and the registry directory
        serve_once(argv, env, cwd)
    python_once(env, cwd)
    figures: dict[str, list[float]] = {"python": []}
    for index in range(RUNS):
        figures["python"].append(python_once(env, cwd))
        order = list(sides.items()) if index % 2 == 0 else list(sides.items())[::-1]
        for side, argv in order:
            initialized, listed = serve_once(argv, env, cwd)
            figures.setdefault(f"init|{side}", []).append(initialized)
            figures.setdefault(f"tools|{side}", []).append(listed)
    base = median(figures["python"])
    table = Table(f"jobs-tui mcp: spawn -> answer, median of {RUNS}")
    for side in sides:
        for kind, what in (("init", "initialize"), ("tools", "tools/list")):
            values = figures[f"{kind}|{side}"]
            value, ratio = median(values), median(values) / base
            ok = value <= TARGET_MS and ratio <= TARGET_RATIO if kind == "init" else None
            table.add(
                f"{what} answer, {side}",
                f"{value:.1f} ms (p95 {p95(values):.1f})",
                f"python -c pass {base:.1f} ms",
                f"{ratio:.2f}x",
                f"<= {TARGET_MS:.0f} ms and <= {TARGET_RATIO:.0f}x" if kind == "init" else "",
                ok,
            )
    publish(table)
