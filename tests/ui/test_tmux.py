"""`jobs-tui` in a real terminal (tmux): jobs started by another process appear live; keys work.

The screen is read with `tmux capture-pane` and driven with `tmux send-keys`, on a
private tmux server so nothing else the user runs is touched.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from .tmuxpane import Tmux, app_in_tmux

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.usefixtures("tmux_installed"),
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


@pytest.fixture
def tmux(registry_dir: str, tmp_path: Path) -> Iterator[Tmux]:
    with app_in_tmux(registry_dir, tmp_path) as session:
        yield session


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
        tmux.keys("d")  # the person supervises every job: one y/N naming whose it is
        screen = tmux.wait_for("Kill it?")
        assert "j1 belongs to the " in " ".join(screen.split())
        tmux.keys("n")
        tmux.wait_for("Kill it?", gone=True)
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
