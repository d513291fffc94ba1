"""`jobs-tui serve`'s figures (issue 14): serve → first paint, and an idle tab's CPU.

Run by hand (not part of the default test run):

    python -m pytest tests/bench/test_serve_bench.py -s -p no:cacheprovider

JOBS_TUI_BENCH_SERVE_RUNS sets the runs (default 5); needs chromium and tmux.

A private registry with one running job started from the command line. First paint:
from starting `jobs-tui serve` to the page having received the job's row (the browser is
already running), beside the terminal app's start to the same row in tmux. Idle: the CPU
of the server and of the tab's app over 20 s with the page open and nothing happening
but the clock, beside the terminal app's over the same time.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import psutil
import pytest
from benchlib import Table, env_int, publish

from tests.serve.browser import Screen, launch

pytestmark = pytest.mark.timeout(1800)
RUNS = max(1, env_int("JOBS_TUI_BENCH_SERVE_RUNS", 5))

ENTRY = [sys.executable, "-m", "jobs_tui.app.cli"]
IDLE_SECONDS = 20.0


def cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def tmux(socket: str, *words: str) -> str:
    done = subprocess.run(["tmux", "-L", socket, *words], capture_output=True, text=True)
    return done.stdout


def main(runs: int) -> None:
    from playwright.sync_api import sync_playwright

    root = tempfile.mkdtemp(prefix="serve-bench-")
    env = {**os.environ, "JOBS_TUI_REGISTRY_DIR": f"{root}/reg", "JOBS_TUI_CONFIG": f"{root}/c"}
    os.environ.update(env)
    subprocess.run([*ENTRY, "start", "--label", "bench-job", "--", "sleep 600"], check=True)
    socket = f"serve-bench-{os.getpid()}"
    web, term = [], []
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright, f"{root}/profile")
            for run in range(runs):
                started = time.monotonic()
                server = subprocess.Popen(
                    [*ENTRY, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True
                )
                url = server.stdout.readline().split(": ", 1)[1].strip()  # type: ignore[union-attr]
                page = browser.new_page()
                screen = Screen()
                screen.watch(page)
                page.goto(url)
                web.append(screen.wait_for(page, "bench-job") - started)
                if run == runs - 1:
                    page.wait_for_timeout(3000)
                    host = psutil.Process(server.pid)
                    (app,) = host.children()
                    before, at = cpu(host), cpu(app)
                    page.wait_for_timeout(IDLE_SECONDS * 1000)
                    idle_server = (cpu(host) - before) / IDLE_SECONDS
                    idle_app = (cpu(app) - at) / IDLE_SECONDS
                page.close()
                server.send_signal(2)
                server.wait()
                started = time.monotonic()
                tmux(socket, "new-session", "-d", "-x", "150", "-y", "40", *ENTRY)
                while "bench-job" not in tmux(socket, "capture-pane", "-p"):
                    time.sleep(0.02)
                term.append(time.monotonic() - started)
                if run == runs - 1:
                    time.sleep(3)
                    pid = int(tmux(socket, "list-panes", "-F", "#{pane_pid}").split()[0])
                    shell = psutil.Process(pid)
                    before = cpu(shell)
                    time.sleep(IDLE_SECONDS)
                    idle_term = (cpu(shell) - before) / IDLE_SECONDS
                tmux(socket, "kill-server")
            browser.close()
    finally:
        subprocess.run([*ENTRY, "clear", "--all"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)
    table = Table(f"jobs-tui serve: {runs} runs, one running job (baseline: the terminal app)")
    web_s, term_s = statistics.median(web), statistics.median(term)
    table.add(
        "start -> the job's row on screen, median",
        f"{web_s:.2f} s {fmt(web)}",
        f"{term_s:.2f} s {fmt(term)} in tmux",
        f"{web_s / term_s:.2f}x",
    )
    table.add(
        f"idle {IDLE_SECONDS:.0f} s: CPU of a core",
        f"server {idle_server:.2%} + tab's app {idle_app:.2%}",
        f"{idle_term:.2%} the terminal app",
        f"{(idle_server + idle_app) / max(idle_term, 1e-9):.2f}x",
    )
    publish(table)


def fmt(values: list[float]) -> str:
    return "(" + " ".join(f"{v:.2f}" for v in values) + ")"


def test_serve_first_paint_and_idle_cpu() -> None:
    main(RUNS)
