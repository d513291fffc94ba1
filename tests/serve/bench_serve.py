"""`jobs-tui serve`'s figures (not a test): serve → first paint, and an idle tab's CPU.

    python -m tests.serve.bench_serve [RUNS]

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

from .browser import Screen, launch

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
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load {load}; {runs} runs")
    print(f"serve → job row in the browser: median {statistics.median(web):.2f}s {fmt(web)}")
    print(f"jobs-tui → job row in tmux:      median {statistics.median(term):.2f}s {fmt(term)}")
    print(
        f"idle {IDLE_SECONDS:.0f}s: server {idle_server:.2%} + tab's app {idle_app:.2%} "
        f"of a core; the terminal app {idle_term:.2%}"
    )


def fmt(values: list[float]) -> str:
    return "(" + " ".join(f"{v:.2f}" for v in values) + ")"


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
