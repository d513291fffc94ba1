"""`jobs-tui` in a real terminal (tmux): jobs started by another process appear live; keys work.

The screen is read with `tmux capture-pane` and driven with `tmux send-keys`, on a
private tmux server so nothing else the user runs is touched.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator

import pytest

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

AGENT = textwrap.dedent(
    """
    import asyncio, sys
    from jobs_tui.engine import JobManager
    async def main():
        async with JobManager(registry_dir=sys.argv[1]) as jm:
            await jm.start("echo tmux-marker-line; sleep 300", label="agent task")
            await jm.start("echo compiling; exit 3", label="agent failure")
            print("started", flush=True)
            await asyncio.sleep(300)
    asyncio.run(main())
    """
)


class Tmux:
    def __init__(self, socket: str) -> None:
        self.socket = socket

    def run(self, *args: str) -> str:
        out = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )
        return out.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "ui")

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.run("send-keys", "-t", "ui", key)
            time.sleep(0.15)

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        windows = self.run("list-windows")
        raise AssertionError(f"{text!r} never appeared ({windows}); the screen was:\n{screen}")


@pytest.fixture
def tmux(registry_dir: str, tmp_path) -> Iterator[Tmux]:
    session = Tmux(f"jobs-tui-test-{os.getpid()}-{time.monotonic_ns()}")
    env = {
        k: os.environ[k]
        for k in (
            "JOBS_TUI_CONFIG",
            "XDG_STATE_HOME",
            "XDG_CONFIG_HOME",
            "HOME",
            "PATH",
            "LANG",
            "LC_ALL",
        )
        if k in os.environ
    }
    env["JOBS_TUI_REGISTRY_DIR"] = registry_dir
    env["TERM"] = "xterm-256color"
    # a clean environment: COLUMNS / LINES inherited from the test runner would fix the size
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    command = (
        f"cd {shlex.quote(os.fspath(tmp_path))} && env -i {exports} "
        f"{shlex.quote(sys.executable)} -m jobs_tui.app.cli; echo EXITED $?; sleep 60"
    )
    session.run("new-session", "-d", "-s", "ui", "-x", "110", "-y", "32", command)
    session.run("resize-window", "-t", "ui", "-x", "110", "-y", "32")
    try:
        yield session
    finally:
        session.run("kill-server")


def test_jobs_tui_in_a_real_terminal(tmux: Tmux, registry_dir: str):
    tmux.wait_for("0 jobs · 0 running · 0 failed · 0 peer")
    agent = subprocess.Popen(
        [sys.executable, "-c", AGENT, registry_dir], stdout=subprocess.PIPE, text=True
    )
    try:
        assert agent.stdout is not None and agent.stdout.readline().strip() == "started"
        screen = tmux.wait_for("2 jobs · 1 running · 1 failed · 2 peer")
        assert "agent task" in screen and "agent failure" in screen and " peer" in screen
        tmux.keys("g")
        screen = tmux.wait_for("echo tmux-marker-line; sleep 300")  # the detail pane
        assert "another session" in screen
        tmux.keys("d")
        screen = tmux.wait_for("not killed.")
        assert "j1 is another session's job;" in " ".join(screen.split())
        tmux.keys("Enter")
        # the log pane's subheader: the list's detail pane may show the marker line too
        screen = tmux.wait_for("j1.log")
        assert "following" in screen and "tmux-marker-line\n" in screen
        tmux.keys("q", "j")
        tmux.wait_for("echo compiling; exit 3")
        tmux.keys("q")  # nothing of ours runs: quits without asking
        tmux.wait_for("EXITED 0")
    finally:
        agent.kill()
        agent.wait(timeout=30)
