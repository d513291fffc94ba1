"""SVG snapshots of the terminal view fed bytes recorded from real programs on a PTY.

The bytes are in `terminal_bytes/` (re-record with `terminal_bytes/record.py`); feeding
them is deterministic. Regenerate with `--snapshot-update` and look at the report.
"""

from __future__ import annotations

import os

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from jobs_tui.screens.terminal.view import TerminalView
from jobs_tui.term.model import TermModel

pytestmark = pytest.mark.timeout(60)

BYTES = os.path.join(os.path.dirname(__file__), "terminal_bytes")


def recorded(name: str) -> bytes:
    with open(os.path.join(BYTES, f"{name}.bin"), "rb") as f:
        return f.read()


class TermApp(App[None]):
    def __init__(self, data: bytes, cols: int, rows: int, interactive: bool = False) -> None:
        super().__init__()
        self.data = data
        self.model = TermModel(cols, rows)
        self.interactive = interactive

    def compose(self) -> ComposeResult:
        yield TerminalView(self.model, job_id="j3")

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        self.animation_level = "none"
        view = self.query_one(TerminalView)
        view.interactive = self.interactive
        view.feed(self.data)


async def settle(pilot: Pilot) -> None:
    await pilot.pause(0.1)


def curses_until_exit() -> bytes:
    data = recorded("curses_box")
    return data[: data.index(b"\x1b[?1l\x1b>\x1b[14;1H")]  # the program's last frame


def test_terminal_curses_box_on_the_alternate_screen(snap_compare):
    app = TermApp(curses_until_exit(), 40, 14)
    assert app.model.modes.alt_screen is False  # fed on mount
    assert snap_compare(app, terminal_size=(41, 14), run_before=settle)


def test_terminal_curses_box_interactive(snap_compare):
    app = TermApp(curses_until_exit(), 40, 14, interactive=True)
    assert snap_compare(app, terminal_size=(43, 16), run_before=settle)


def test_terminal_back_at_the_shell_after_curses(snap_compare):
    app = TermApp(recorded("curses_box"), 40, 14)
    assert snap_compare(app, terminal_size=(41, 14), run_before=settle)


def test_terminal_progress_bar(snap_compare):
    app = TermApp(recorded("progress"), 50, 8)
    assert snap_compare(app, terminal_size=(51, 8), run_before=settle)


def test_terminal_colours_and_wide_characters(snap_compare):
    app = TermApp(recorded("colours"), 50, 10)
    assert snap_compare(app, terminal_size=(51, 10), run_before=settle)


def test_recorded_screens_as_text():
    """What the snapshots show, as text: a check that needs no SVG to read."""
    model = TermModel(40, 14)
    model.feed(curses_until_exit())
    lines = model.text_lines()
    assert model.modes.alt_screen and lines[2].strip().startswith("┌─ jobs-tui ─")
    assert "status: running" in lines[4] and lines[10].strip() == "cursor here"
    assert model.cursor == (17, 10)
    model.feed(recorded("curses_box")[len(curses_until_exit()) :])
    assert not model.modes.alt_screen and model.text_lines()[0] == "back at the shell"
    progress = TermModel(50, 8)
    progress.feed(recorded("progress"))
    assert progress.text_lines()[:4] == [
        "Downloading artefacts",
        "████████████████████ 100%  1200 KiB",
        "✓ done",
        "compiled",
    ]
    colours = TermModel(50, 10)
    colours.feed(recorded("colours"))
    assert colours.text_lines()[4] == "wide: 中文字符 テスト 한국어 | emoji 🚀✨ | end"
