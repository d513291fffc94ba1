"""Terminal view benchmarks (issue 13): a real app on a real pseudo-terminal, measured outside.

Run by hand (not part of the default test run), when the machine is quiet:

    python -m pytest tests/bench/test_terminal_bench.py -s -p no:cacheprovider

The UI runs as its own process on a pty (test_ui_bench's `Pty` harness): a small app
hosting one `TerminalView` over a PTY job, opened with `open_terminal` and following
it with `follow_log`, exactly as the terminal screen does. CPU is the UI process's own;
latency is key written to the UI's pty -> the frame that shows the job's answer. Each
figure is printed beside a baseline from the same run, with the load average.

Environment (optional): JOBS_TUI_BENCH_PTY_BYTES (default 256M) for the open test,
JOBS_TUI_BENCH_UI_RUNS (default 30) key presses per latency figure.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import shutil
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from benchlib import PTY_BYTES, Table, human_bytes, median, p95, publish
from test_ui_list_bench import RUNS, add
from uipty import Pty, measure_window

from jobs_tui.engine import Config, JobManager

pytestmark = pytest.mark.timeout(1800)

JOB_COLS, JOB_ROWS = 120, 40
UI_COLS, UI_ROWS = 122, 42  # the job's screen and a scrollbar fit

# A full-screen program repainting a 120x40 screen `fps` times a second (or as fast as it
# can, up to `limit` bytes, then a last frame holding `marker`): every row coloured.
REPAINT = textwrap.dedent(
    """
    import os, sys, time
    fps, limit, marker = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    cols, rows = 120, 40
    written, frame, t0 = 0, 0, time.monotonic()
    sys.stdout.buffer.write(b"\\x1b[?1049h\\x1b[?25l")
    def paint(frame, last=""):
        out = ["\\x1b[H"]
        for r in range(rows):
            colour = 31 + (r + frame) % 7
            text = f" row {r:02d} frame {frame:08d} {last}".ljust(cols - 30)
            bar = "#" * ((frame + r) % 30)
            out.append(f"\\x1b[{r + 1};1H\\x1b[{colour}m{text}\\x1b[0;1m{bar:<30}\\x1b[0m")
        return "".join(out).encode()
    while limit == 0 or written < limit:
        data = paint(frame)
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        written += len(data)
        frame += 1
        if fps:
            time.sleep(max(0.0, t0 + frame / fps - time.monotonic()))
    sys.stdout.buffer.write(paint(frame, marker))
    sys.stdout.buffer.flush()
    time.sleep(3600)
    """
)
# Answers each byte it reads (raw mode) with a new counter: what typing into a job looks like.
ECHO = (
    "stty raw -echo; exec {python} -c 'import os\nn = 0\nwhile os.read(0, 1):\n"
    '    n += 1\n    os.write(1, b"\\r\\x1b[2K<%04d>" % n)\''
)

# Runs inside the pty: a JobManager, the job (started, or given), then the view's app.
HARNESS = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from textual.app import App
    from textual.widgets import Static
    from jobs_tui.engine import Config, JobManager
    from jobs_tui.screens.terminal.replay import open_terminal
    from jobs_tui.screens.terminal.view import TerminalView

    async def main():
        spec = json.loads(sys.argv[1])
        jm = JobManager(cwd=spec["dir"], registry_dir=spec["dir"], config=Config(max_log_bytes=0))
        await jm.open()
        job = spec.get("job")
        if job is None:
            rec = await jm.start(spec["command"], tty=True, cols=120, rows=40)
            job = rec.id
        stats = open(spec["stats"], "a")

        class BenchApp(App):
            CSS = "Static { height: 1; }"
            view = None

            def compose(self):
                yield Static("press enter to open")

            def on_mount(self):
                if spec.get("open_now"):
                    self.call_later(self.open)

            async def open(self):
                model, follow = await open_terminal(jm, job, 120, 40)
                self.view = TerminalView(model, job_id=job)
                await self.mount(self.view)
                self.view.follow_log(follow)
                self.set_interval(0.5, self.dump)

            async def on_key(self, event):
                if self.view is None:
                    await self.open()
                elif event.character:
                    await jm.send_bytes(job, event.character.encode())

            def dump(self):
                end = jm.follow(job).position
                stats.write(json.dumps([time.time(), self.view.model.fed, end]) + "\\n")
                stats.flush()

        await BenchApp().run_async()
        await jm.close()

    asyncio.run(main())
    """
)


def harness(spec: dict) -> list[str]:
    return [sys.executable, "-c", HARNESS, json.dumps(spec)]


def ui(spec: dict) -> Pty:
    return Pty(harness(spec), UI_COLS, UI_ROWS)


def fed_share(stats: str) -> tuple[int, int]:
    """(bytes the view fed, bytes the log held) at the last dump."""
    rows = [json.loads(line) for line in Path(stats).read_text().splitlines() if line.strip()]
    return (rows[-1][1], rows[-1][2]) if rows else (0, 0)


@pytest.fixture
def registry(bench_root: Path) -> Iterator[str]:
    path = bench_root / f"term-{time.monotonic_ns()}"
    yield str(path)
    shutil.rmtree(path, ignore_errors=True)


def repaint(fps: float, limit: int = 0, marker: str = "-") -> str:
    return f"{sys.executable} -c {shlex.quote(REPAINT)} {fps} {limit} {marker}"


def test_following_a_120x40_screen_repainted_60_times_a_second(registry: str) -> None:
    """UI CPU while the view follows a full-screen repaint at 60 fps; baseline: an idle job."""
    results = {}
    for name, command in (("60 fps", repaint(60)), ("idle", "sleep 3600")):
        stats = f"{registry}-{name}.stats"
        spec = {"dir": f"{registry}-{len(results)}", "stats": stats, "command": command}
        spec["open_now"] = True
        term = ui(spec)
        try:
            term.first(
                re.compile(rb"row 39 frame|press enter" if name == "idle" else rb"row 39 frame"),
                0,
                120,
            )
            time.sleep(3)
            cpu, fps = measure_window(term, 10)
            time.sleep(1)
            fed, held = fed_share(stats)
            results[name] = {"cpu": cpu, "fps": fps, "fed": fed, "held": held}
        finally:
            term.close()
            shutil.rmtree(spec["dir"], ignore_errors=True)
    busy, idle = results["60 fps"], results["idle"]
    table = Table("Terminal view following a 120x40 screen repainted 60 times a second")
    add(table, "UI process CPU (one core)", busy["cpu"], idle["cpu"], "{:.1f}%", "< 30%",
        busy["cpu"] < 30)  # fmt: skip
    add(table, "frames drawn per second", busy["fps"], idle["fps"], "{:.1f}/s")
    table.add(
        "bytes fed to the emulator / written by the job",
        f"{human_bytes(busy['fed'])} / {human_bytes(busy['held'])}",
        "",
        f"{busy['fed'] / max(1, busy['held']):.3f}",
        "every byte (lag < 1 s of output)",
        busy["held"] - busy["fed"] < 60 * 8 * 1024,
    )
    publish(table)


def test_typing_into_a_job_echo_reaches_the_screen(registry: str) -> None:
    """Key to the UI -> send_bytes -> the job answers -> the answer drawn; baseline: the
    same key on the same app with a job that is not followed live (nothing to draw)."""
    spec = {"dir": registry, "stats": f"{registry}.stats", "open_now": True}
    spec["command"] = ECHO.format(python=sys.executable)
    term = ui(spec)
    try:
        time.sleep(2)
        lat = []
        for n in range(1, RUNS + 1):
            time.sleep(0.15)
            t = term.send(b"x")
            ts, _ = term.first(re.compile(rb"<%04d>" % n), t, timeout=10)
            lat.append((ts - t) * 1000)
    finally:
        term.close()
    table = Table("Terminal view: a key typed into a PTY job -> its answer on screen")
    table.add("latency median", f"{median(lat):.1f} ms", "", "", "< 30 ms", median(lat) < 30)
    table.add("latency p95", f"{p95(lat):.1f} ms")
    publish(table)


async def _big_job(registry: str, kind: str, marker: str) -> tuple[JobManager, str]:
    """A PTY job of a session kept open here that wrote PTY_BYTES, then `marker`."""
    jm = JobManager(cwd=registry, registry_dir=registry, config=Config(max_log_bytes=0))
    await jm.open()
    if kind == "lines":
        line = "0123456789" * 7 + "012345678"
        command = f"yes {line} | head -c {PTY_BYTES}; echo {marker}; sleep 3600"
    else:
        command = repaint(0, PTY_BYTES, marker)
    rec = await jm.start(command, tty=True, cols=JOB_COLS, rows=JOB_ROWS)
    follow = jm.follow(rec.id, 0)
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        await asyncio.sleep(1)
        assert jm.get(rec.id).status == "running", jm.get(rec.id)
        end = jm.follow(rec.id).position
        if end >= PTY_BYTES:
            follow.skip_to(max(0, end - 65536))
            if marker.encode() in follow.read(1 << 20).data:
                break
            await asyncio.sleep(1)
            if marker.encode() in jm.follow(rec.id, max(0, end - 65536)).read(1 << 22).data:
                break
    return jm, rec.id


def test_open_the_view_of_a_pty_job_that_wrote_256_mib(registry: str) -> None:
    """Enter -> the job's screen shown, for a line-printing job and a full-screen one."""
    table = Table(f"Terminal view: open a PTY job that wrote {human_bytes(PTY_BYTES)}")
    for kind in ("lines", "full screen"):
        marker = f"marker{time.monotonic_ns() % 10**9}"
        loop = asyncio.new_event_loop()
        jm, job = loop.run_until_complete(_big_job(f"{registry}-{kind[0]}", kind, marker))
        try:
            size = jm.follow(job).position
            times = []
            for _ in range(5):
                spec = {"dir": f"{registry}-{kind[0]}", "stats": f"{registry}.stats", "job": job}
                term = ui(spec)
                try:
                    term.first(re.compile(rb"press enter"), 0, 120)
                    time.sleep(1)
                    t = term.send(b"\r")
                    ts, _ = term.first(re.compile(re.escape(marker.encode())), t, 60)
                    times.append((ts - t) * 1000)
                finally:
                    term.close()
            table.add(
                f"Enter -> screen shown ({kind}, log {human_bytes(size)})",
                f"{median(times):.1f} ms",
                f"max {max(times):.1f} ms",
                "",
                "< 200 ms",
                median(times) < 200,
            )
        finally:
            loop.run_until_complete(jm.kill(job))
            loop.run_until_complete(jm.close())
            loop.close()
    publish(table)
