"""Issue 13 in a real terminal (tmux): type into a PTY job from `jobs-tui`.

`jobs-tui` runs in a tmux pane on a private tmux server (`tmux -L <unique socket>`) with
a private registry, HOME and config; jobs are started by the command line (`jobs-tui
start --tty`, the `cli` session) so the app shows them as a peer's: typing into one asks
one y/N naming its session (the app supervises every job), and a job taken over (`t`)
is the app's without being killed when it quits. What the job draws is read back with
`tmux capture-pane`, each wait polled against a deadline.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from .tmuxpane import Tmux, app_in_tmux, poll

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.usefixtures("tmux_installed"),
]


@pytest.fixture
def tmux(registry_dir: str, tmp_path: Path) -> Iterator[Tmux]:
    with app_in_tmux(registry_dir, tmp_path) as session:
        yield session


def pane_rows(screen: str) -> list[str]:
    """The screen's rows without the terminal pane's border."""
    return [line.strip().strip("┃│").strip() for line in screen.splitlines()]


def follows(rows: list[str], first: str, then: str) -> bool:
    return any(a == first and b == then for a, b in pairwise(rows))


def open_own(tmux: Tmux, label: str, job_id: str) -> None:
    """Select the job by its label (the list's filter), take it over, open its terminal."""
    tmux.keys("/", literal=True)
    tmux.wait_for("Clear filter")  # the footer once the filter field has the keys
    tmux.keys(label, literal=True)
    tmux.keys("Enter")
    time.sleep(0.3)  # the filter applies on its next tick
    tmux.keys("t")
    tmux.wait_for(f"Take over {job_id} ({label})?")
    tmux.keys("y")
    tmux.wait_for(f"{job_id} is now this session's job")
    tmux.keys("Enter")
    # the terminal pane's own header: the list shows a job's last line too (vim's `~`)
    tmux.wait_for("of scrollback")


def test_typing_into_a_python_repl_and_vim(tmux: Tmux) -> None:
    tmux.wait_for("0 jobs · 0 running")
    python = shlex.quote(sys.executable)
    tmux.cli("start", "--tty", "--label", "repl", "--", f"{python} -q")
    tmux.wait_for("repl")

    # a peer's job: typing into it asks once, naming whose it is
    tmux.keys("g", "Enter")
    tmux.wait_for("of scrollback")
    tmux.wait_for(">>>")
    tmux.keys("i")
    screen = tmux.wait_for("Type into it?")
    assert "j1 belongs to the cli session." in " ".join(screen.split())
    tmux.keys("n")
    tmux.wait_for("Type into it?", gone=True)
    tmux.keys("q")
    tmux.wait_for("1 job · 1 running")

    open_own(tmux, "repl", "j1")
    tmux.wait_for(">>>")
    tmux.keys("i")
    tmux.wait_for("typing into j1")
    tmux.keys("6*7", literal=True)
    tmux.keys("Enter")
    tmux.wait_for("42")
    assert poll(lambda: follows(pane_rows(tmux.screen()), ">>> 6*7", "42"))

    tmux.keys("C-c")
    screen = tmux.wait_for("KeyboardInterrupt")
    time.sleep(0.3)
    assert tmux.status("j1")["job"]["status"] == "running"
    tmux.keys("1+1", literal=True)
    tmux.keys("Enter")
    tmux.wait_for(">>> 1+1")
    assert poll(lambda: follows(pane_rows(tmux.screen()), ">>> 1+1", "2"))  # still answers

    tmux.keys("C-]")
    tmux.wait_for("typing into j1", gone=True)
    tmux.keys("6", literal=True)  # view mode again: the key is the screen's, not the job's
    time.sleep(0.3)
    assert ">>> 6" not in pane_rows(tmux.screen())

    # vim on a terminal: insert text, leave insert mode, quit; the job ends with exit 0
    tmux.keys("q", "/")  # the list; its filter field, which Esc clears
    tmux.wait_for("Clear filter")
    tmux.keys("Escape")
    tmux.wait_for("Clear filter", gone=True)
    tmux.cli("start", "--tty", "--label", "editor", "--", "vim -u NONE -N")
    tmux.wait_for("editor")
    tmux.keys("/", literal=True)  # the cli's job, typed into without a take-over
    tmux.wait_for("Clear filter")
    tmux.keys("editor", literal=True)
    tmux.keys("Enter")
    time.sleep(0.3)  # the filter applies on its next tick
    tmux.keys("Enter")
    tmux.wait_for("of scrollback")
    tmux.wait_for("~")
    tmux.keys("i")
    tmux.wait_for("j2 belongs to the cli session. Type into it?")
    tmux.keys("y")
    tmux.wait_for("typing into j2")
    tmux.keys("ihello", literal=True)
    tmux.keys("Escape")
    screen = tmux.wait_for("hello")
    assert pane_rows(screen).count("~") >= 5, screen  # vim's empty-buffer lines
    tmux.keys(":q!", literal=True)
    tmux.keys("Enter")
    tmux.wait_for("exit 0")
    record = tmux.status("j2")["job"]
    assert record["status"] == "exited" and record["exitCode"] == 0
    tmux.wait_for("typing into j2", gone=True)  # a finished job takes no keys

    assert tmux.status("j2")["job"]["sessionId"] == "cli"  # still the command line's
    tmux.keys("q", "q")  # the list, then quit: nothing started here runs, so it quits
    tmux.wait_for("EXITED 0", timeout=30)
    assert tmux.status("j1")["job"]["status"] == "running"  # taken over, not killed
