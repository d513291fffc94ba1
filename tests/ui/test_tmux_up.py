"""`jobs-tui up` in a real terminal (tmux): the sample stack of examples/stack comes up on
the screen, in order, the worker's crash loop shown; `D` and its y/N bring it down."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest

from .tmuxpane import app_in_tmux, poll

pytestmark = [
    pytest.mark.timeout(150),
    pytest.mark.usefixtures("tmux_installed"),
]

STACK = Path(__file__).resolve().parents[2] / "examples" / "stack"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _project(tmp_path: Path) -> Path:
    """examples/stack copied, its API on a free port (the sample's 8765 may be taken)."""
    project = tmp_path / "project"
    shutil.copytree(STACK, project)
    toml = project / "jobs-tui.toml"
    toml.write_text(toml.read_text().replace("8765", str(_free_port())))
    return project


def test_up_opens_the_screen_and_brings_the_stack_up_then_d_brings_it_down(
    registry_dir: str, tmp_path: Path
):
    project = _project(tmp_path)
    with app_in_tmux(registry_dir, tmp_path, args=("up",), cwd=project) as tmux:
        try:
            # db first, then api once db is ready: each row says its state
            assert poll(lambda: _row(tmux, "api", "ready"), 40), tmux.screen()
            assert _row(tmux, "db", "ready"), tmux.screen()
            # the worker fails every time: three restarts, then it stays failed
            assert poll(lambda: _row(tmux, "worker", "crash-loop"), 40), tmux.screen()
            tmux.keys("D")
            tmux.wait_for("Bring down", timeout=10)
            tmux.keys("y")
            assert poll(lambda: "running" not in _states(tmux).values(), 30), _states(tmux)
            tmux.keys("q")
            tmux.wait_for("EXITED 0", timeout=20)
        finally:
            tmux.kill_leftovers()


def _row(tmux, name: str, state: str) -> bool:
    """A list row (left of the detail pane) of `name` in `state`."""
    rows = [line.split("▏")[0].split() for line in tmux.screen().splitlines()]
    return any(name in row and state in " ".join(row[row.index(name) + 1 :]) for row in rows)


def _states(tmux) -> dict[str, str]:
    listed = json.loads(tmux.cli("list", "--all", "--json"))["jobs"]
    return {job.get("name") or job["id"]: job["status"] for job in listed}
