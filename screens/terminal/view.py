"""`TerminalView`: a PTY job's emulated screen (a `TermModel`) with its scrollback above.

Every byte is fed to the model at once; drawing is throttled to `max_fps` (to
FULL_REPAINT_FPS while the job keeps repainting its whole screen) and only the rows
whose cells changed are refreshed. The view follows the bottom unless the user scrolled
up. Only cells are drawn (text and style, each cell already made safe by the model):
nothing of the job's output ever reaches the real terminal as an escape sequence.
"""

from __future__ import annotations

import asyncio
import time
from itertools import groupby, repeat
from operator import itemgetter
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from jobs_tui.screens.widgets.source import LogFollow
from jobs_tui.term.model import Cell, Line, TermModel

from .replay import LivePump

ANSI_NAMES = {
    "black": 0,
    "red": 1,
    "green": 2,
    "brown": 3,
    "yellow": 3,
    "blue": 4,
    "magenta": 5,
    "cyan": 6,
    "white": 7,
}
LEAVE_KEY = "ctrl+]"
STRIP_CACHE = 4096
FULL_REPAINT_FPS = 10.0  # draws a second at most while the job repaints its whole screen
_ATTRS = itemgetter(slice(1, None))  # a cell's attributes: twice as fast as (1, ..., 8)
_DATA = itemgetter(0)
_HEX = frozenset("0123456789abcdefABCDEF")


def colour(name: str) -> str | None:
    """pyte's colour (`red`, `brightred`, `ff8700`, `default`) as a Rich colour."""
    if name == "default" or not name:
        return None
    bright = name.startswith("bright")
    index = ANSI_NAMES.get(name[6:] if bright else name)
    if index is not None:
        return f"color({index + 8 if bright else index})"
    if len(name) == 6 and _HEX.issuperset(name):
        return f"#{name}"
    return None


_STYLES: dict[tuple[Any, ...], Style] = {}


def style_of(attrs: tuple[Any, ...]) -> Style:
    """(fg, bg, bold, italics, underscore, strikethrough, reverse, blink) as a Style."""
    style = _STYLES.get(attrs)
    if style is None:
        fg, bg, bold, italic, underline, strike, reverse, blink = attrs
        style = Style(
            color=colour(fg),
            bgcolor=colour(bg),
            bold=bold or None,
            italic=italic or None,
            underline=underline or None,
            strike=strike or None,
            reverse=reverse or None,
            blink=blink or None,
        )
        if len(_STYLES) > 4096:
            _STYLES.clear()
        _STYLES[attrs] = style
    return style


CURSOR = Style(reverse=True)


def row_segments(line: Line, cols: int, cursor_x: int | None = None) -> list[Segment]:
    """One row's cells as segments: runs of one style; the cursor cell reversed."""
    default = getattr(line, "default", None)
    cells: list[Cell] = list(map(line.get, range(cols), repeat(default, cols)))
    if cursor_x is None or not 0 <= cursor_x < cols:
        return _runs(cells)
    if cells[cursor_x].data == "" and cursor_x:  # on a wide character's second half
        cursor_x -= 1
    at = cells[cursor_x]
    return [
        *_runs(cells[:cursor_x]),
        Segment(at.data or " ", style_of(_ATTRS(at)) + CURSOR),
        *_runs(cells[cursor_x + 1 :]),
    ]


def _runs(cells: list[Cell]) -> list[Segment]:
    """Runs of cells with the same attributes (C-level grouping: a row is redrawn often)."""
    datas = list(map(_DATA, cells))
    segments = []
    at = 0
    for attrs, group in groupby(map(_ATTRS, cells)):
        size = len(list(group))
        segments.append(Segment("".join(datas[at : at + size]), style_of(attrs)))
        at += size
    return segments


class TerminalView(ScrollView, can_focus=True):
    """A PTY job's emulated screen with its scrollback above, following live output."""

    DEFAULT_CSS = """
    TerminalView {
        height: 1fr;
        overflow-x: auto;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
    }
    TerminalView.-interactive {
        border: heavy $accent;
        border-title-color: $accent;
        border-title-style: bold;
    }
    """

    interactive: reactive[bool] = reactive(False)

    class Resized(Message):
        """The pane can show a different number of cells: a PTY resize may follow."""

        def __init__(self, view: TerminalView, cols: int, rows: int) -> None:
            super().__init__()
            self.view = view
            self.cols = cols
            self.rows = rows

        @property
        def control(self) -> TerminalView:
            return self.view

    def __init__(
        self,
        model: TermModel | None = None,
        *,
        job_id: str = "",
        max_fps: float = 30.0,
        leave_key: str = LEAVE_KEY,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.model = model if model is not None else TermModel()
        self.job_id = job_id
        self.leave_key = leave_key
        self.following = True
        self._interval = 1.0 / max(1.0, max_fps)
        self._full_interval = max(self._interval, 1.0 / FULL_REPAINT_FPS)
        self._next_draw = 0.0
        self._was_full = False  # the last draw redrew most of the screen
        self._draw_pending = False
        # by absolute row (dropped scrollback + n): (a screen row's cells, cursor x, strip)
        self._rows: dict[int, tuple[dict[int, Cell] | None, int | None, Strip]] = {}
        self._frame: tuple[int, int, int, int, int | None] | None = None
        self._shape: tuple[int, int, int, int] = (-1, -1, -1, -1)
        self._cursor = (-1, -1)
        self._pane: tuple[int, int] = (0, 0)
        self._quiet = False
        self._pump: LivePump | None = None
        self._pump_task: asyncio.Task[None] | None = None

    # -- feeding -----------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Feed the job's bytes; rows are redrawn at most `max_fps` times a second."""
        if data:
            self.model.feed(data)
            self._schedule()

    def follow_log(self, follow: LogFollow) -> None:
        """Feed what the job writes from `follow`'s position on (see `open_terminal`),
        woken within milliseconds of each write; stops when the view is removed."""
        if self._pump is not None:
            self._pump.stop()
        self._pump = LivePump(follow, self.feed, self._fresh_model, self.replace_model)
        self._pump_task = asyncio.get_running_loop().create_task(self._pump.run())

    @property
    def skipped(self) -> int:
        """Bytes passed over to catch up with a job that writes faster than it is drawn."""
        return self._pump.skipped if self._pump is not None else 0

    def _fresh_model(self) -> TermModel:
        model = self.model
        return TermModel(model.cols, model.rows, model.scrollback)

    def replace_model(self, model: TermModel) -> None:
        """Show another model (a catch-up rebuilt the screen); redrawn whole."""
        self.model = model
        self._shape = (-1, -1, -1, -1)
        self._rows.clear()  # drawn from the old model: never shown for the new one
        self._schedule()

    def on_mount(self) -> None:
        self._schedule()  # a model fed before the view existed (a replay) is shown at once

    def on_unmount(self) -> None:
        if self._pump is not None:
            self._pump.stop()
            self._pump = None

    def _schedule(self) -> None:
        if self._draw_pending:
            return
        self._draw_pending = True
        delay = self._next_draw - time.monotonic()
        if delay > 0:
            self.set_timer(delay, self._draw)
        else:
            self.call_later(self._draw)

    def _draw(self) -> None:
        """Refresh what changed since the last draw: the rows whose cells (or cursor)
        differ from what was drawn, or all when the scrollback moved the rows."""
        self._draw_pending = False
        model = self.model
        dirty = model.take_dirty()
        hist = model.history_len()
        shape = (model.cols, model.rows, hist, model.history_dropped)
        cursor_x, cursor_y = model.cursor
        cursor_row = hist + cursor_y if model.modes.cursor_visible else -1
        cursor = (cursor_x, cursor_row)
        changed = model.rows
        if shape != self._shape:
            if (hist > 0) != (self._shape[2] > 0):
                self.call_after_refresh(self._check_pane)  # the scrollbar came or went
            self._shape = shape
            self._rows.clear()
            self.virtual_size = Size(model.cols, hist + model.rows)
            if self.following:
                self._quietly(self.follow_end)
                self.call_after_refresh(self._quietly, self.follow_end)  # once laid out
            self.refresh()
        else:
            rows = {hist + y for y in dirty}
            if cursor != self._cursor:
                rows.update(r for r in (cursor_row, self._cursor[1]) if r >= 0)
            changed = self._refresh_rows(self._changed(rows, cursor))
        self._cursor = cursor
        # A job that keeps repainting (most of) its screen, or scrolling, is drawn at
        # FULL_REPAINT_FPS: a frame's rows are what costs. One such draw alone (a clear,
        # an Enter at a prompt) does not slow the next.
        full, self._was_full = self._was_full, changed * 2 >= model.rows
        full = full and self._was_full
        self._next_draw = time.monotonic() + (self._full_interval if full else self._interval)

    def _changed(self, rows: set[int], cursor: tuple[int, int]) -> list[int]:
        """Of `rows` (marked dirty: pyte marks a row on any write), those whose cells or
        cursor differ from what was drawn; the others keep their strips."""
        model = self.model
        base, lines = model.history_dropped, self._rows
        changed = []
        for n in rows:
            drawn = lines.get(base + n)
            if drawn is not None:
                cursor_x = cursor[0] if n == cursor[1] else None
                if drawn[1] == cursor_x and drawn[0] == model.line(n):
                    continue
                del lines[base + n]
            changed.append(n)
        return changed

    def _refresh_rows(self, rows: list[int]) -> int:
        """Refresh the visible ones of `rows`, runs of adjacent rows as one region each,
        in one call; how many were visible."""
        top = self.scroll_offset.y
        region = self.scrollable_content_region
        ys = sorted(n - top for n in rows if 0 <= n - top < region.height)
        if not ys:
            return 0
        width = self.size.width
        regions = []
        start = prev = ys[0]
        for y in ys[1:]:
            if y != prev + 1:
                regions.append(Region(0, start, width, prev - start + 1))
                start = y
            prev = y
        regions.append(Region(0, start, width, prev - start + 1))
        self.refresh(*regions)
        return len(ys)

    # -- drawing -----------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        """Lines for Textual: what every row needs (scroll offset, width, cursor) is
        read once for all of them."""
        self._frame = self._read_frame()
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def _read_frame(self) -> tuple[int, int, int, int, int | None]:
        """(scroll x, scroll y, width, the cursor's row, its column) for `render_line`."""
        scroll_x, scroll_y = self.scroll_offset
        model = self.model
        cursor_row = -1
        if model.modes.cursor_visible:
            cursor_row = model.history_len() + model.cursor[1]
        width = self.scrollable_content_region.width
        return scroll_x, scroll_y, width, cursor_row, model.cursor[0]

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y, width, cursor_row, cursor_col = self._frame or self._read_frame()
        n = scroll_y + y
        model = self.model
        if n >= model.total_lines():
            return Strip.blank(width)
        key = model.history_dropped + n
        drawn = self._rows.get(key)
        if drawn is None:
            cursor_x = cursor_col if n == cursor_row else None
            line = model.line(n)
            strip = Strip(row_segments(line, model.cols, cursor_x), model.cols)
            if len(self._rows) >= STRIP_CACHE:
                self._rows.clear()
            # a screen row keeps a copy of its cells: rewritten alike, it is not redrawn
            cells = dict(line) if n >= model.history_len() else None
            drawn = self._rows[key] = (cells, cursor_x, strip)
        strip = drawn[2]
        if scroll_x == 0 and strip.cell_length == width:
            return strip
        return strip.crop_extend(scroll_x, scroll_x + width, None)

    # -- what the hosting screen uses ----------------------------------------------
    def pane_size(self) -> tuple[int, int]:
        """(cols, rows) the pane shows once the screen is resized to it: inside its border,
        less the vertical scrollbar when there is scrollback. Not less the scrollbars an
        emulated screen wider or taller than the pane has for a moment (a shrinking window):
        they go when it is resized, and a size taken with them stays a cell short."""
        region = self.content_region
        bar = self.styles.scrollbar_size_vertical if self.model.history_len() else 0
        return max(1, region.width - bar), max(1, region.height)

    def _check_pane(self) -> None:
        pane = self.pane_size()
        if pane != self._pane:
            self._pane = pane
            self.post_message(self.Resized(self, *pane))

    def on_resize(self) -> None:
        self._check_pane()
        if self.following:
            self.call_after_refresh(self._quietly, self.follow_end)

    def resize_model(self, cols: int, rows: int) -> None:
        """Resize the emulated screen (after the job's PTY was resized to match)."""
        self.model.resize(cols, rows)
        self._schedule()

    def lines_text(self) -> list[str]:
        """Every row, scrollback first, as plain text: what a search runs over."""
        return self.model.lines_text()

    def jump_to_line(self, n: int) -> None:
        """Show row `n` of `lines_text()` (middle of the pane); stops following."""
        height = self.scrollable_content_region.height
        target = max(0, n - height // 2)
        self.following = target >= self.max_scroll_y
        self._quietly(lambda: self.scroll_to(y=target, animate=False, immediate=True))

    def follow_end(self) -> None:
        self.following = True
        self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)

    def _quietly(self, scroll: Any) -> None:
        self._quiet = True
        try:
            scroll()
        finally:
            self._quiet = False

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._quiet:
            return
        if new_value >= self.max_scroll_y:
            self.following = True
        elif new_value < old_value:
            self.following = False

    def watch_interactive(self, interactive: bool) -> None:
        self.set_class(interactive, "-interactive")
        self.border_title = (
            f"typing into {self.job_id} · {self.leave_key} leaves" if interactive else None
        )
