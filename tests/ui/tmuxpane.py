"""`jobs-tui` in a real terminal: a pane of a private tmux server (`tmux -L <unique
socket>`) with a private registry, HOME and config, and the command line beside it.

What the app draws is read back with `tmux capture-pane`; each wait polls against a
deadline. Used by the tmux tests (`test_tmux.py`, `test_tmux_terminal.py`).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ENV_KEYS = ("PATH", "LANG", "LC_ALL")


def require_tmux() -> None:
    """A missing tmux fails the test, never a skip: the screen tests are how the app is
    seen in a real terminal (`.ci/run` installs it)."""
    import pytest

    if shutil.which("tmux") is None:
        pytest.fail(
            "tmux is missing: the terminal tests need it "
            "(apt-get install -y tmux, brew install tmux; .ci/run installs it)"
        )


class Tmux:
    """The app in pane `ui` of a private tmux server; the command line beside it."""

    def __init__(self, socket: str, env: dict[str, str], cwd: str) -> None:
        self.socket = socket
        self.env = env
        self.cwd = cwd

    def run(self, *args: str) -> str:
        out = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )
        return out.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "ui")

    def keys(self, *keys: str, literal: bool = False) -> None:
        """Each key (a tmux key name, or text with `literal`), a beat apart, as typed."""
        for key in keys:
            self.run("send-keys", "-t", "ui", *(["-l"] if literal else []), key)
            time.sleep(0.1)

    def wait_for(self, text: str, timeout: float = 20.0, gone: bool = False) -> str:
        """The screen once `text` is on it (or, with `gone`, once it is not)."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if (text in screen) != gone:
                return screen
            time.sleep(0.05)
        state = "still there" if gone else "never appeared"
        raise AssertionError(f"{text!r} {state}; the screen was:\n{screen}")

    def cli(self, *args: str) -> str:
        """`jobs-tui ARGS` from the command line (the `cli` session), its stdout."""
        out = subprocess.run(
            [sys.executable, "-m", "jobs_tui.app.cli", *args],
            capture_output=True,
            text=True,
            timeout=60,
            env=self.env,
            cwd=self.cwd,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout

    def status(self, job_id: str) -> dict:
        return json.loads(self.cli("status", job_id, "--json"))

    def kill_leftovers(self) -> None:
        """A test that failed half-way leaves the `cli` session's jobs running: kill them
        (the command line's kill takes another session's job over)."""
        listed = json.loads(self.cli("list", "--all", "--json"))
        for job in listed["jobs"]:
            if job["status"] == "running":
                subprocess.run(
                    [sys.executable, "-m", "jobs_tui.app.cli", "kill", job["id"]],
                    capture_output=True,
                    timeout=60,
                    env=self.env,
                    cwd=self.cwd,
                )


def poll(check, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())


@contextmanager
def app_in_tmux(
    registry_dir: str,
    tmp_path: Path,
    cols: int = 110,
    rows: int = 32,
    args: tuple[str, ...] = (),
    cwd: Path | None = None,
) -> Iterator[Tmux]:
    """`jobs-tui ARGS` running in pane `ui` (in `cwd`, else `tmp_path`); after the block,
    the server and any job the command line's session left running are gone."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: os.environ[k] for k in ENV_KEYS if k in os.environ}
    env.update(
        HOME=str(home),
        JOBS_TUI_REGISTRY_DIR=registry_dir,
        JOBS_TUI_CONFIG=str(home / "config.toml"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_CONFIG_HOME=str(home / "config"),
        TERM="xterm-256color",
    )
    where = str(cwd or tmp_path)
    session = Tmux(f"jobs-tui-test-{os.getpid()}-{time.monotonic_ns()}", env, where)
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    argv = " ".join(shlex.quote(a) for a in args)
    command = (
        f"cd {shlex.quote(where)} && env -i {exports} "
        f"{shlex.quote(sys.executable)} -m jobs_tui.app.cli {argv}; echo EXITED $?; sleep 60"
    )
    size = ("-x", str(cols), "-y", str(rows))
    session.run("new-session", "-d", "-s", "ui", *size, command)
    session.run("resize-window", "-t", "ui", *size)
    try:
        yield session
    finally:
        session.run("kill-server")
        session.kill_leftovers()
