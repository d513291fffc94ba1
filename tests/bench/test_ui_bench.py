"""The UI's CPU beside Textual's own `Log` following the same output (issue 24, section 4).

Run by hand (not part of the default test run):

    python -m pytest tests/bench/test_ui_bench.py -s -p no:cacheprovider

Each situation runs a real job, then measures, from /proc of each UI process over the
same window length: `jobs-tui` (its real app on a pty, showing the job) and a minimal
Textual app whose one widget is Textual's `Log`, fed every new byte of the same log file
as it grows (what a developer would write in ten lines). Target: jobs-tui at most 1.0x
of that app in each situation. The machine is shared: the two are measured back to
back, alternately, JOBS_TUI_BENCH_CPU_ROUNDS times (default 2), and medians compared;
JOBS_TUI_BENCH_CPU_ONLY=idle (a word of a situation's name) measures only that one.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import sys
import textwrap
import time
from pathlib import Path

import pytest
from benchlib import Table, env_int, median, publish
from uipty import Pty, measure_window

from jobs_tui.engine import Config, JobManager

pytestmark = pytest.mark.timeout(1800)

ROUNDS = max(1, env_int("JOBS_TUI_BENCH_CPU_ROUNDS", 2))
ONLY = os.environ.get("JOBS_TUI_BENCH_CPU_ONLY", "")  # measure the situations naming this
WINDOW_S = 8.0
COLS, ROWS = 160, 45
YES = "nice -n 10 yes 'the quick brown fox jumps over the lazy dog 0123456789'"
TWENTY = (  # twenty lines a second
    "nice -n 10 {python} -u -c 'import time\nfor n in range(10**9):\n"
    '    print("GET /api/cart", n, "200 4ms")\n    time.sleep(0.05)\''
)

# The person's app on the job's registry: the list (the job selected), or its log pane.
JOBS_TUI = textwrap.dedent(
    """
    import asyncio, sys
    from jobs_tui.engine import JobManager
    from jobs_tui.app.tui import JobsApp
    from jobs_tui.screens import JobsScreen, LogScreen

    async def main():
        registry, job_id, pane = sys.argv[1:4]
        jm = JobManager(cwd=registry, registry_dir=registry)

        class BenchApp(JobsApp):
            def on_mount(self):
                self.set_timer(0.05, self.ready)

            def ready(self):
                screen = self.screen
                listed = isinstance(screen, JobsScreen) and screen.query("JobList")
                if not listed or screen.selected is None:
                    self.set_timer(0.05, self.ready)
                    return
                screen.job_list.select(job_id)
                if pane == "log":
                    self.push_screen(LogScreen(jm, job_id))

        await BenchApp(jm).run_async()
        await jm.close()

    asyncio.run(main())
    """
)

# The baseline: Textual's own Log, fed every new byte of the log file.
LOG_APP = textwrap.dedent(
    """
    import os, sys
    from textual.app import App
    from textual.widgets import Log

    class Follow(App):
        def compose(self):
            yield Log(max_lines=2000)

        def on_mount(self):
            self.file = open(sys.argv[1], "rb")
            self.file.seek(0, 2)
            self.set_interval(0.05, self.pump)

        def pump(self):
            data = self.file.read()
            if data:
                self.query_one(Log).write(data.decode("utf-8", "replace"))
            elif os.stat(sys.argv[1]).st_ino != os.fstat(self.file.fileno()).st_ino:
                self.file = open(sys.argv[1], "rb")  # rotated: the new live file (tail -F)

    Follow().run()
    """
)


async def _start(registry: str, commands: list[str]) -> tuple[str, list[str]]:
    """Detached jobs (they outlive this session, which ends here); the first one's log."""
    config = Config(max_log_bytes=64 << 20)
    async with JobManager(cwd=registry, registry_dir=registry, config=config) as jm:
        ids = [
            (await jm.start(c, label=f"job {n}", detached=True)).id for n, c in enumerate(commands)
        ]
        return jm.get(ids[0]).log_path, ids


def _cpu_of(argv: list[str], ready: re.Pattern[bytes]) -> float:
    ui = Pty(argv, cols=COLS, rows=ROWS)
    try:
        ui.first(ready, 0, timeout=120)
        time.sleep(2)  # start-up work settles
        return measure_window(ui, WINDOW_S)[0]
    finally:
        ui.close()


def _situation(bench_root: Path, name: str, commands: list[str], pane: str) -> tuple[float, float]:
    """(jobs-tui CPU, Log app CPU), medians of ROUNDS alternating measurements."""
    registry = str(bench_root / f"cpu-{name.replace(' ', '-')}-{time.monotonic_ns()}")
    log_path, ids = asyncio.run(_start(registry, commands))
    ours, theirs = [], []
    try:
        for _ in range(ROUNDS):
            argv = [sys.executable, "-c", JOBS_TUI, registry, ids[0], pane]
            ready = re.compile(rb"following" if pane == "log" else rb"live")
            ours.append(_cpu_of(argv, ready))
            theirs.append(_cpu_of([sys.executable, "-c", LOG_APP, log_path], re.compile(rb".")))
    finally:

        async def stop() -> None:
            async with JobManager(cwd=registry, registry_dir=registry) as again:
                for job_id in ids:
                    await again.kill(job_id, "SIGKILL")

        asyncio.run(stop())
    return median(ours), median(theirs)


def test_ui_cpu_beside_textuals_log(bench_root: Path) -> None:
    python = shlex.quote(sys.executable)
    situations = [
        ("the list, a yes-speed job selected (its live tail)", [YES], "list"),
        ("the log pane following 20 lines/s", [TWENTY.format(python=python)], "log"),
        ("the log pane following yes", [YES], "log"),
        ("the idle list, 4 quiet running jobs", ["sleep 3600"] * 4, "list"),
    ]
    table = Table("UI CPU, % of one core: jobs-tui (value) beside Textual's Log app (baseline)")
    results = {}
    for name, commands, pane in [s for s in situations if ONLY in s[0]]:
        ours, log_app = _situation(bench_root, name, commands, pane)
        results[name] = (ours, log_app)
        ratio = ours / log_app if log_app else float("inf")
        table.add(name, f"{ours:.1f}%", f"{log_app:.1f}%", f"{ratio:.2f}x", "<= 1.0x",
                  ratio <= 1.0)  # fmt: skip
    publish(table)
    Path(os.environ.get("JOBS_TUI_BENCH_CPU_JSON", os.devnull)).write_text(json.dumps(results))
    assert all(ours < 100 for ours, _ in results.values())  # gross sanity only
