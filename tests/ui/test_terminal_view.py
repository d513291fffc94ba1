"""TerminalView in a real app: drawing, following, throttling, and a real PTY job."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest
from textual.app import App, ComposeResult

from jobs_tui.screens.terminal.replay import open_terminal
from jobs_tui.screens.terminal.view import TerminalView
from jobs_tui.term.model import TermModel

from .fakes import screen_text, until

pytestmark = pytest.mark.timeout(60)


class CountingView(TerminalView):
    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.rendered: list[int] = []
        self.resizes: list[tuple[int, int]] = []

    def render_line(self, y: int):  # type: ignore[no-untyped-def]
        self.rendered.append(y)
        return super().render_line(y)


class ViewApp(App[None]):
    def __init__(self, view: TerminalView) -> None:
        super().__init__()
        self.view = view
        self.resized: list[tuple[int, int]] = []

    def compose(self) -> ComposeResult:
        yield self.view

    def on_terminal_view_resized(self, message: TerminalView.Resized) -> None:
        self.resized.append((message.cols, message.rows))


async def test_view_shows_the_screen_and_follows_the_bottom():
    view = TerminalView(TermModel(40, 5), job_id="j3")
    app = ViewApp(view)
    async with app.run_test(size=(42, 12)) as pilot:
        for i in range(30):
            view.feed(b"line %d\r\n" % i)
        view.feed(b"\x1b[32m$ \x1b[0mprompt")
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "line 29" in text and "$ prompt" in text
        assert view.following and view.scroll_y == view.max_scroll_y
        view.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert not view.following
        view.feed(b"\r\nmore\r\n")
        await pilot.pause(0.1)
        assert view.scroll_y == 0 and "line 0" in screen_text(app)  # stays where the user is
        view.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert view.following
        assert "line 0" in view.lines_text()[0]
        view.jump_to_line(3)
        await pilot.pause()
        assert "line 3" in screen_text(app) and not view.following


async def test_a_model_fed_before_the_view_is_shown_at_its_bottom_at_once():
    model = TermModel(40, 5)
    model.feed(b"".join(b"replayed %d\r\n" % i for i in range(50)) + b"$ last")
    view = TerminalView(model, job_id="j3")
    app = ViewApp(view)
    async with app.run_test(size=(42, 12)) as pilot:
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "$ last" in text and "replayed 49" in text
        assert view.following and view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y


async def test_pane_size_and_resized_message():
    view = TerminalView(TermModel(80, 24))
    app = ViewApp(view)
    async with app.run_test(size=(50, 10)) as pilot:
        await pilot.pause()
        cols, rows = view.pane_size()
        # 80x24 cells show scrollbars for now; the size is the one the pane has once the
        # screen is resized to it (no scrollback: no scrollbar at all)
        assert (cols, rows) == (50, 10)
        assert app.resized and app.resized[-1] == (cols, rows)
        await pilot.resize_terminal(60, 12)
        await pilot.pause(0.1)
        assert app.resized[-1] == view.pane_size() == (60, 12)


class ResizingApp(ViewApp):
    """Does what TerminalScreen does with a Resized: the emulated screen takes the size."""

    def on_terminal_view_resized(self, message: TerminalView.Resized) -> None:
        super().on_terminal_view_resized(message)
        message.view.resize_model(message.cols, message.rows)


@pytest.mark.parametrize("history", [0, 50])
async def test_a_shrinking_window_leaves_the_screen_the_panes_whole_size(history: int):
    """80x24 shrunk to 78x19 gave a 77x18 screen: the size was taken with the scrollbars
    the too-big screen had for a moment."""
    model = TermModel(80, 24)
    model.feed(b"".join(b"line %d\r\n" % i for i in range(history)))
    view = TerminalView(model)
    app = ResizingApp(view)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        await pilot.resize_terminal(78, 19)
        await pilot.pause(0.2)
        bar = 1 if history else 0
        assert (view.model.cols, view.model.rows) == (78 - bar, 19)
        assert view.scrollable_content_region.width == 78 - bar
        assert view.scrollable_content_region.height == 19  # no horizontal scrollbar left


async def test_scrollback_arriving_gives_the_scrollbar_its_cell():
    view = TerminalView(TermModel(40, 5))
    app = ResizingApp(view)
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause(0.1)
        assert (view.model.cols, view.model.rows) == (40, 5)
        view.feed(b"".join(b"line %d\r\n" % i for i in range(20)))
        assert await until(lambda: view.model.cols == 39)
        await pilot.pause(0.1)
        assert view.scrollable_content_region.width == 39


async def test_interactive_shows_a_border_and_label():
    view = TerminalView(TermModel(40, 5), job_id="j3")
    app = ViewApp(view)
    async with app.run_test(size=(50, 10)) as pilot:
        view.interactive = True
        await pilot.pause()
        assert view.has_class("-interactive")
        assert "typing into j3 · ctrl+] leaves" in screen_text(app)
        view.interactive = False
        await pilot.pause()
        assert "typing into" not in screen_text(app)


async def test_redraws_are_throttled_and_only_dirty_rows_are_redrawn():
    view = CountingView(TermModel(40, 8), max_fps=20)
    app = ViewApp(view)
    async with app.run_test(size=(42, 10)) as pilot:
        view.feed(b"\x1b[H\x1b[2J" + b"".join(b"row %d\r\n" % i for i in range(7)))
        await pilot.pause(0.2)
        view.rendered.clear()
        started = time.monotonic()
        for i in range(200):  # every byte is fed, few frames are drawn
            view.feed(b"\x1b[4;1Hcount %d" % i)
            await asyncio.sleep(0)
        await pilot.pause(0.15)
        elapsed = time.monotonic() - started
        assert view.model.text_lines()[3] == "count 199"
        frames = len(view.rendered)
        assert set(view.rendered) == {3, 7}  # the changed row, and the cursor's old one
        assert frames <= 2 * (elapsed * 20 + 3), frames
        assert "count 199" in screen_text(app)


async def test_a_real_pty_job_is_shown_after_open_and_followed_live(jm):
    script = (
        "import sys,time;"
        "sys.stdout.write('\\x1b[?1049h\\x1b[H\\x1b[2J+--------+\\r\\n|  box   |\\r\\n+--------+');"
        "sys.stdout.flush();"
        "sys.stdin.readline()"
    )
    rec = await jm.start(f'{sys.executable} -c "{script}"', tty=True, cols=30, rows=6)
    assert await until(lambda: b"+--------+" in _log(jm, rec.id), 10)
    await asyncio.sleep(0.2)
    model, follow = await open_terminal(jm, rec.id, 30, 6)
    assert model.modes.alt_screen and model.text_lines()[1] == "|  box   |"
    view = TerminalView(model, job_id=rec.id)
    app = ViewApp(view)
    async with app.run_test(size=(40, 10)) as pilot:
        view.follow_log(follow)
        await pilot.pause(0.05)
        assert "|  box   |" in screen_text(app)
        await jm.send_bytes(rec.id, b"typed")
        assert await until(lambda: "typed" in "".join(model.text_lines()), 5)
        await pilot.pause(0.1)
        assert "typed" in screen_text(app)
    await jm.kill(rec.id)


def _log(jm, job_id: str) -> bytes:  # type: ignore[no-untyped-def]
    follow = jm.follow(job_id, 0)
    return follow.read().data


async def test_hostile_output_reaches_the_screen_as_cells_only():
    import unicodedata

    from tests.unit.test_terminal_model import HOSTILE

    view = TerminalView(TermModel(40, 6), job_id="j3")
    app = ViewApp(view)
    async with app.run_test(size=(42, 8)) as pilot:
        view.feed(HOSTILE + b"\x1b]0;" + b"A" * 100_000)  # an OSC that never ends
        view.feed(b"\x07visible")
        await pilot.pause(0.1)
        assert "visible" in screen_text(app) and "AAAA" not in screen_text(app)
        for y in range(6):
            for segment in view.render_line(y):
                for ch in segment.text:
                    assert unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Zl", "Zp"), ch


async def test_a_row_rewritten_with_the_same_cells_keeps_its_strip():
    """pyte marks a row dirty on any write: a program repainting its whole screen with
    mostly the same text redraws only the rows whose cells changed."""
    view = CountingView(TermModel(40, 8))
    app = ViewApp(view)
    frame = b"\x1b[?25l\x1b[H" + b"".join(b"\x1b[%d;1Hrow %d" % (r + 1, r) for r in range(8))
    async with app.run_test(size=(42, 10)) as pilot:
        view.feed(frame)
        await pilot.pause(0.2)
        view.rendered.clear()
        view.feed(frame + b"\x1b[5;1Hrow X")  # every row written again, one changed
        await pilot.pause(0.2)
        assert view.rendered == [4]
        assert "row X" in screen_text(app)


async def test_a_job_repainting_its_whole_screen_is_drawn_at_the_full_repaint_rate():
    """Every byte is fed, but whole-screen repaints are drawn FULL_REPAINT_FPS times a
    second at most (the rows' drawing is what costs); a single row keeps max_fps."""
    from jobs_tui.screens.terminal.view import FULL_REPAINT_FPS

    view = CountingView(TermModel(40, 8), max_fps=60)
    app = ViewApp(view)
    async with app.run_test(size=(42, 10)) as pilot:
        await pilot.pause(0.1)
        view.rendered.clear()
        started = time.monotonic()
        for i in range(120):  # a 120 fps job: every row changes every frame
            view.feed(
                b"\x1b[H" + b"".join(b"\x1b[%d;1Hrow %d %d" % (r + 1, r, i) for r in range(8))
            )
            await asyncio.sleep(1 / 120)
        await pilot.pause(0.15)
        elapsed = time.monotonic() - started
        assert view.model.text_lines()[7] == "row 7 119"
        frames = view.rendered.count(7)  # each drawn frame renders the last row once
        assert frames <= elapsed * FULL_REPAINT_FPS + 3, (frames, elapsed)
        assert "row 7 119" in screen_text(app)
