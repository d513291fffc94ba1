"""Issue 13's key latency: a key typed into a PTY job, to the echoed character on screen.

Run by hand (not part of the default test run):

    python -m pytest tests/bench/test_terminal_keys_bench.py -s -p no:cacheprovider

The real app runs on a pseudo-terminal (the UI benchmark's `Pty` harness) with the
terminal screen of a job running `cat` on its own PTY, in interactive mode. This
process types one character at a time into the app's terminal and times it until a
frame holding it arrives: the path is key -> app -> engine -> shim -> the job's PTY
(whose line discipline echoes it) -> the log on disk -> the view's wake-up -> a
repaint. Baseline from the same run: the engine alone (send_bytes, then the echo read
back from the log with the engine's follower, polled every millisecond).

Environment (optional): JOBS_TUI_BENCH_UI_RUNS (default 30) keys per figure.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import shutil
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from benchlib import Table, env_int, load, median, p95, publish
from uipty import Pty

from jobs_tui.engine import JobManager

pytestmark = pytest.mark.timeout(900)

RUNS = max(10, env_int("JOBS_TUI_BENCH_UI_RUNS", 30))
WINDOW = 5  # typed characters that name one key press uniquely on screen
LINE = 50  # characters typed before an (unmeasured) Enter starts a new line

HARNESS = textwrap.dedent(
    """
    import asyncio, json, sys
    from jobs_tui.engine import JobManager
    from jobs_tui.app.tui import JobsApp
    from jobs_tui.screens import JobsScreen, TerminalScreen

    async def main():
        spec = json.loads(sys.argv[1])
        jm = JobManager(cwd=spec["dir"], registry_dir=spec["dir"])
        await jm.open()
        rec = await jm.start(spec["command"], label="typing", tty=True)

        class BenchApp(JobsApp):
            def on_mount(self):
                self.set_timer(0.05, self.ready)

            def ready(self):
                if not any(isinstance(s, JobsScreen) for s in self.screen_stack):
                    self.set_timer(0.05, self.ready)
                    return
                self.push_screen(TerminalScreen(jm, rec.id))

        await BenchApp(jm).run_async()
        await jm.close()

    asyncio.run(main())
    """
)


def typed_stream(count: int, seed: int = 13) -> str:
    """Letters in which every WINDOW-long run is unique, so each key press has its own
    text to look for on screen."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out = ""
    while len(out) < count:
        letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
        window = (out + letter)[-WINDOW:]
        if len(window) == WINDOW and window in seen:
            continue
        seen.add(window)
        out += letter
    return out


def ui_latencies(registry: str, command: str, runs: int) -> list[float]:
    spec = {"dir": registry, "command": command}
    ui = Pty([sys.executable, "-c", HARNESS, json.dumps(spec)])
    try:
        ui.first(re.compile(rb"following"), 0, timeout=120)
        time.sleep(1)
        t = ui.send(b"i")
        ui.first(re.compile(rb"typing into j1"), t, timeout=10)
        time.sleep(0.5)
        line = ""
        out: list[float] = []
        for letter in typed_stream(4 * runs + 50):
            if len(out) >= runs:
                break
            if len(line) >= LINE:  # cat echoes the line back: a fresh one, unmeasured
                ui.send(b"\r")
                line = ""
                time.sleep(0.3)
            line += letter
            time.sleep(0.1)
            t = ui.send(letter.encode())
            if len(line) < WINDOW:  # too short to name this key press on screen
                time.sleep(0.1)
                continue
            ts, _ = ui.first(re.compile(re.escape(line[-WINDOW:].encode())), t, timeout=10)
            out.append((ts - t) * 1000)
        return out[:runs]
    finally:
        ui.close()


async def engine_latencies(registry: str, command: str, runs: int) -> list[float]:
    """The engine alone: send a letter, read the job's log until its echo is there."""
    async with JobManager(cwd=registry, registry_dir=registry) as jm:
        rec = await jm.start(command, label="typing", tty=True)
        await asyncio.sleep(1)
        follow = jm.follow(rec.id)
        out = []
        for n, letter in enumerate(typed_stream(runs)):
            if n and n % LINE == 0:
                await jm.send_bytes(rec.id, b"\r")
                await asyncio.sleep(0.2)
                follow.read(1 << 20)
            await asyncio.sleep(0.05)
            t = time.perf_counter()
            await jm.send_bytes(rec.id, letter.encode())
            got = b""
            while letter.encode() not in got:
                got += follow.read(1 << 20).data
                if time.perf_counter() - t > 10:
                    raise AssertionError(f"{letter!r} was not echoed; read {got!r}")
                await asyncio.sleep(0.001)
            out.append((time.perf_counter() - t) * 1000)
        await jm.kill(rec.id)
        return out


@pytest.fixture
def registry(bench_root: Path) -> Iterator[str]:
    path = bench_root / f"term-keys-{time.monotonic_ns()}"
    yield str(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("command", ["cat", "sh"])
def test_key_to_echo_on_screen_in_interactive_mode(registry: str, command: str) -> None:
    before = load()
    ui = ui_latencies(registry + "-ui", command, RUNS)
    engine = asyncio.run(engine_latencies(registry + "-engine", command, RUNS))
    after = load()
    table = Table(f"UI: key typed into `{command}` on a PTY -> echo on screen (interactive mode)")
    ok = median(ui) < 30
    table.add("key -> echo on screen, median", f"{median(ui):.1f} ms",
              f"{median(engine):.1f} ms (engine alone)", "", "< 30 ms", ok)  # fmt: skip
    table.add("key -> echo on screen, p95", f"{p95(ui):.1f} ms", f"{p95(engine):.1f} ms")
    table.add("load (1 min) before / after", before, after)
    publish(table)
    assert median(ui) < 1000
