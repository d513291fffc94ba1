"""`TerminalView`: a PTY job's emulated screen (a `TermModel`) with its scrollback above.

Every byte is fed to the model at once; drawing is throttled to `max_fps` and only the
rows that changed are refreshed. The view follows the bottom unless the user scrolled
up. Only cells are drawn (text and style, each cell already made safe by the model):
nothing of the job's output ever reaches the real terminal as an escape sequence.
"""

from __future__ import annotations

import asyncio
import time
from itertools import groupby
from operator import itemgetter
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .source import LogFollow
from .terminal_model import Cell, Line, TermModel
from .terminal_replay import LivePump

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
_ATTRS = itemgetter(1, 2, 3, 4, 5, 6, 7, 8)
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
    cells: list[Cell] = [line[x] for x in range(cols)]
    segments = []
    if cursor_x is not None and 0 <= cursor_x < cols:
        if cells[cursor_x].data == "" and cursor_x:  # on a wide character's second half
            cursor_x -= 1
        before, at, after = cells[:cursor_x], cells[cursor_x], cells[cursor_x + 1 :]
        segments.extend(_runs(before))
        cell = at
        segments.append(Segment(cell.data or " ", style_of(_ATTRS(cell)) + CURSOR))
        segments.extend(_runs(after))
        return segments
    return _runs(cells)


def _runs(cells: list[Cell]) -> list[Segment]:
    return [
        Segment("".join([c.data for c in group]), style_of(attrs))
        for attrs, group in groupby(cells, _ATTRS)
    ]


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
        self._next_draw = 0.0
        self._draw_pending = False
        self._strips: dict[int, Strip] = {}  # by absolute row (dropped scrollback + n)
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
        self._pump = LivePump(follow, self.feed)
        self._pump_task = asyncio.get_running_loop().create_task(self._pump.run())

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
        """Refresh what changed since the last draw: the dirty rows, or all when the
        scrollback moved the rows."""
        self._draw_pending = False
        self._next_draw = time.monotonic() + self._interval
        model = self.model
        dirty = model.take_dirty()
        hist = model.history_len()
        shape = (model.cols, model.rows, hist, model.history_dropped)
        cursor_x, cursor_y = model.cursor
        cursor_row = hist + cursor_y if model.modes.cursor_visible else -1
        cursor = (cursor_x, cursor_row)
        if shape != self._shape:
            self._shape = shape
            self._strips.clear()
            self.virtual_size = Size(model.cols, hist + model.rows)
            if self.following:
                self._quietly(self.follow_end)
            self.refresh()
        else:
            rows = {hist + y for y in dirty}
            if cursor != self._cursor:
                rows.update(r for r in (cursor_row, self._cursor[1]) if r >= 0)
            base = model.history_dropped
            for n in rows:
                self._strips.pop(base + n, None)
                self._refresh_row(n)
        self._cursor = cursor

    def _refresh_row(self, n: int) -> None:
        y = n - self.scroll_offset.y
        if 0 <= y < self.scrollable_content_region.height:
            self.refresh(Region(0, y, self.size.width, 1))

    # -- drawing -----------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        n = scroll_y + y
        width = self.scrollable_content_region.width
        model = self.model
        if n >= model.total_lines():
            return Strip.blank(width)
        key = model.history_dropped + n
        strip = self._strips.get(key)
        if strip is None:
            hist = model.history_len()
            cursor_x = None
            if n - hist == model.cursor[1] and model.modes.cursor_visible:
                cursor_x = model.cursor[0]
            strip = Strip(row_segments(model.line(n), model.cols, cursor_x), model.cols)
            if len(self._strips) >= STRIP_CACHE:
                self._strips.clear()
            self._strips[key] = strip
        return strip.crop_extend(scroll_x, scroll_x + width, None)

    # -- what the hosting screen uses ----------------------------------------------
    def pane_size(self) -> tuple[int, int]:
        """(cols, rows) the pane can show (inside its border and scrollbars)."""
        region = self.scrollable_content_region
        return max(1, region.width), max(1, region.height)

    def on_resize(self) -> None:
        pane = self.pane_size()
        if pane != self._pane:
            self._pane = pane
            self.post_message(self.Resized(self, *pane))
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
