"""`LogView`: a bounded window of log lines, drawn line by line, with search highlights.

Lines arrive sanitized with SGR colours kept; colours are rendered, and search runs
over the same text with the colours stripped. The window holds at most `max_lines`:
older lines fall off the top, and a paused view is shifted so it does not move.

Lines are held whole. Only what is on screen is drawn: the visible cells of a row
(scrolled sideways), or, with `wrap`, one screen-wide piece of a line per row, never
splitting a wide character.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import ClassVar

from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView

from jobs_tui.screens.widgets.css import stylesheet

from .line_cache import LineCache
from .line_matches import LineMatches
from .text import TIME_COLUMNS, contains, plain_of, width_of
from .view_rows import ViewRows
from .wrap_rows import WrapRows


class LogView(ViewRows, ScrollView, can_focus=False):
    """The log pane's text. The screen decides following; the view only reports scrolling."""

    DEFAULT_CSS = stylesheet("log_view.tcss")
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "log-view--match",
        "log-view--current-match",
        "log-view--partial",
        "log-view--time",
    }

    wrap: reactive[bool] = reactive(False, init=False)
    """Long lines continue on the next rows instead of running off to the right."""
    show_times: reactive[bool] = reactive(False, init=False)
    """Each line's time (when it was written) in a column beside it (`T`)."""

    class ScrolledUp(Message):
        """The user moved the view up (wheel, scrollbar): the screen pauses following."""

    class ScrolledDown(Message):
        """The user moved the view down: a window that is not the tail may read on."""

    def __init__(
        self, max_lines: int = 10_000, *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.max_lines = max(1, max_lines)
        self._lines: list[str] = []
        self._times: list[int | None] = []  # wall-clock ms each line was written, if known
        self._offsets: list[int] = []  # absolute byte offset where each line starts (-1: unknown)
        self.next_offset = -1  # where the line after the last complete one starts (-1: unknown)
        self.partial_time: int | None = None
        self._plain: list[str] = []
        self._cells: list[int] = []
        self.base = 0  # absolute number of the first line held
        self.partial = ""
        self._partial_plain = ""
        self._width = 0
        self._cache = LineCache()
        self._rows = WrapRows()  # wrap mode: where each line starts among the rows
        self._quiet = False  # a scroll made by the view itself, not the user
        self._matches = LineMatches()

    # -- content -----------------------------------------------------------------------
    @property
    def query_text(self) -> str:
        """What is being found (empty: no find)."""
        return self._matches.query

    @property
    def matches(self) -> list[tuple[int, int, int]]:
        """Every match held, as (absolute line, start, end)."""
        return self._matches.matches

    @property
    def current(self) -> int:
        """The index of the current match in `matches` (-1: none)."""
        return self._matches.current

    @property
    def line_count(self) -> int:
        return len(self._lines)

    @property
    def lines(self) -> list[str]:
        """Plain text of the complete lines held (colours stripped)."""
        return list(self._plain)

    @property
    def shown(self) -> list[str]:
        """Plain text of every line: the complete ones and the unfinished one, if any."""
        return [*self._plain, self._partial_plain] if self.partial else list(self._plain)

    def matching(self, text: str) -> tuple[list[str], list[int | None]]:
        """The complete lines held whose text contains `text` (smart case), with their times."""
        picked = [i for i, plain in enumerate(self._plain) if contains(plain, text)]
        return [self._lines[i] for i in picked], [self._times[i] for i in picked]

    @property
    def first_offset(self) -> int:
        """Where the first line held starts in the log (-1: unknown)."""
        return self._offsets[0] if self._offsets else self.next_offset

    def offset_of(self, line: int) -> int:
        """Where window line `line` starts in the log (-1: unknown; past the end: next)."""
        return self._offsets[line] if 0 <= line < len(self._offsets) else self.next_offset

    def line_at_offset(self, offset: int) -> int | None:
        """The window line holding absolute byte `offset`, if it is held."""
        if not self._offsets or offset < self._offsets[0] or offset >= self.next_offset:
            return None
        return bisect_right(self._offsets, offset) - 1

    def load(
        self,
        lines: list[str],
        times: list[int | None] | None = None,
        offsets: list[int] | None = None,
        next_offset: int = -1,
    ) -> None:
        self._lines, self._plain, self._cells, self.base, self._width = [], [], [], 0, 0
        self._times, self._offsets, self.next_offset = [], [], -1
        self._cache.clear()
        self._rows.restart([])
        self.partial = self._partial_plain = ""
        self._matches.search(self._matches.query, [], 0, None)
        self.append(lines, "", times, offsets, next_offset)

    def append(
        self,
        lines: list[str],
        partial: str,
        times: list[int | None] | None = None,
        offsets: list[int] | None = None,
        next_offset: int | None = None,
    ) -> int:
        """Add complete lines and set the unfinished one; returns rows dropped off the top.

        The unfinished line is drawn from its own cache entry, so the row it used to
        occupy is drawn from the completed line once it ends.
        """
        first_new = self.base + len(self._lines)
        wrap_width = self._rows.width if self.wrap else 0
        if times is None or len(times) != len(lines):
            times = [None] * len(lines)
        self._times.extend(times)
        if offsets is None or len(offsets) != len(lines):
            offsets = [-1] * len(lines)
        self._offsets.extend(offsets)
        if next_offset is not None:
            self.next_offset = next_offset
        for line in lines:
            plain = plain_of(line)
            width = width_of(plain)
            self._lines.append(line)
            self._plain.append(plain)
            self._cells.append(width)
            if width > self._width:
                self._width = width
            if wrap_width:
                self._rows.add(self._line_rows(self.base + len(self._lines) - 1, plain, width))
        if self.query_text and lines:
            self._matches.scan(self._plain[first_new - self.base :], first_new)
        if partial != self.partial:
            self.partial = partial
            self._partial_plain = plain_of(partial) if partial else ""
            self._cache.new_partial()
            self._width = max(self._width, width_of(self._partial_plain))
        if wrap_width:
            self._rows.partial = self._count_partial_rows()
        dropped = max(0, len(self._lines) - self.max_lines)
        dropped_rows = dropped
        if dropped:
            if wrap_width:
                dropped_rows = self._rows.drop(dropped)
            del self._lines[:dropped]
            del self._times[:dropped]
            del self._offsets[:dropped]
            del self._plain[:dropped]
            del self._cells[:dropped]
            self.base += dropped
            self._matches.drop_before(self.base)
            self._cache.forget_before(self.base)
        self._update_size()
        return dropped_rows

    def prepend(self, lines: list[str], times: list[int | None], offsets: list[int]) -> int:
        """Earlier lines before the first one held; returns the rows they add at the top.

        Lines keep their numbers (`base` goes down), so cached texts and matches stay valid."""
        if not lines:
            return 0
        rows = self.row_count
        plains = [plain_of(line) for line in lines]
        cells = [width_of(plain) for plain in plains]
        self.base -= len(lines)
        self._lines[:0], self._plain[:0], self._cells[:0] = lines, plains, cells
        self._times[:0] = times if len(times) == len(lines) else [None] * len(lines)
        self._offsets[:0] = offsets
        self._width = max(self._width, *cells)
        if self.query_text:
            self._matches.scan_front(plains, self.base)
        if self.wrap:
            self._rebuild_rows()
        self._update_size()
        return self.row_count - rows

    def trim_end(self, count: int) -> None:
        """Let the last `count` lines go (and the unfinished one): a window far from the tail."""
        count = min(max(0, count), len(self._lines))
        keep = len(self._lines) - count
        if count:
            self.next_offset = self._offsets[keep]
        for held in (self._lines, self._plain, self._cells, self._times, self._offsets):
            del held[keep:]
        self.partial = self._partial_plain = ""
        self._cache.new_partial()
        self._matches.drop_from(self.base + keep)
        if self.wrap:
            self._rebuild_rows()
        self._update_size()

    def shift(self, rows: int) -> None:
        """Move the view by `rows` without it counting as the user's scroll."""
        self._quietly(lambda: self.jump(self.scroll_y + rows))

    def _update_size(self) -> None:
        if self.wrap:
            self._set_virtual_size(Size(self._rows.width, self.row_count))
        else:
            height = len(self._lines) + (1 if self.partial else 0)
            self._set_virtual_size(Size(self._width + 1 + self._gutter(), height))
        self.refresh()

    def _set_virtual_size(self, size: Size) -> None:
        """The scrollable size, without a layout of the whole screen: `virtual_size` is a
        layout reactive, and a reflow of every widget per appended line was most of a
        following pane's CPU. The scrollbars are updated; when one comes or goes, its own
        reactive asks for the layout that needs."""
        if size == self.virtual_size:
            return
        if not self.is_mounted or not self.container_size:
            self.virtual_size = size  # before the first layout: the ordinary way
            return
        self.set_reactive(ScrollView.virtual_size, size)
        self._scroll_update(size)

    # -- rows: one per line, or several per line when wrapping ---------------------------
    @property
    def row_count(self) -> int:
        if not self.wrap:
            return len(self._lines) + (1 if self.partial else 0)
        return self._rows.count

    def _gutter(self) -> int:
        return TIME_COLUMNS if self.show_times else 0

    def _content_width(self) -> int:
        """Cells for the text of a row (the time column, when shown, takes the rest)."""
        return max(1, self.scrollable_content_region.width - self._gutter())

    def watch_show_times(self) -> None:
        if self.wrap:
            self._rebuild_rows()
        self._update_size()

    def _line_rows(self, absolute: int, plain: str, cells: int) -> int:
        width = self._rows.width
        if cells <= width:
            return 1
        if plain.isascii():
            return -(-cells // width)
        return self._map_for(absolute, plain).rows(width)

    def _count_partial_rows(self) -> int:
        if not self.partial:
            return 0
        return self._cache.partial_cells(self._partial_plain).rows(self._rows.width)

    def _rebuild_rows(self) -> None:
        """Rows per line for the current width (wrap mode); O(lines), long lines aside."""
        self._rows.width = self._content_width()
        ends, total = [], 0
        for offset, (plain, cells) in enumerate(zip(self._plain, self._cells, strict=True)):
            total += self._line_rows(self.base + offset, plain, cells)
            ends.append(total)
        self._rows.restart(ends)
        self._rows.partial = self._count_partial_rows()

    def locate(self, row: int) -> tuple[int, int] | None:
        """(line within the window, row within that line) of virtual row `row`."""
        if row < 0:
            return None
        if not self.wrap:
            return (row, 0) if row < len(self._lines) + (1 if self.partial else 0) else None
        return self._rows.locate(row, len(self._lines))

    def first_row(self, line: int) -> int:
        """The virtual row where window line `line` starts."""
        return self._rows.first_row(line) if self.wrap else line

    def watch_wrap(self, was_wrapped: bool, wrap: bool) -> None:
        """Keep the line at the top of the view where it was."""
        anchor = self._line_at(round(self.scroll_y), was_wrapped)
        if wrap:
            self._rebuild_rows()
        else:
            self._rows.restart([])
            self._rows.partial = 0
        self._update_size()
        self._quietly(lambda: self.jump(self.first_row(anchor), x=0))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base = None
        self._cache.forget_strips()

    def on_resize(self) -> None:
        if self.wrap and self._content_width() != self._rows.width:
            anchor = self._line_at(round(self.scroll_y), True)
            self._rebuild_rows()
            self._update_size()
            self._quietly(lambda: self.jump(self.first_row(anchor)))

    def _line_at(self, row: int, wrapped: bool) -> int:
        if not wrapped:
            return row
        place = self.locate(row)
        return place[0] if place is not None else len(self._lines)

    # -- search ------------------------------------------------------------------------
    def search(self, query: str, near_line: int | None = None) -> None:
        """Find every match; the current one is the last at or above `near_line` (absolute)."""
        self._matches.search(query, self._plain, self.base, near_line)
        self.refresh()

    def select_match_on(self, line: int) -> bool:
        """Make the first match on window line `line` the current one (False: none there)."""
        found = self._matches.select_line(self.base + line)
        self.refresh()
        return found

    def step_match(self, delta: int) -> None:
        if self._matches.step(delta):
            self.refresh()

    def current_match_line(self) -> int | None:
        """The current match's line within the window."""
        match = self._matches.current_match()
        return None if match is None else match[0] - self.base

    def show_current_match(self) -> None:
        """Scroll so the current match is on screen: its row centred, its columns in view."""
        match = self._matches.current_match()
        if match is None:
            return
        absolute, start, end = match
        line = absolute - self.base
        cells = self._map_for(absolute, self._plain[line])
        width = self._content_width()
        height = self.scrollable_content_region.height
        if self.wrap:
            starts = cells.row_starts(self._rows.width)
            row = self.first_row(line) + bisect_right(starts, start) - 1
            self.jump(row - height // 2)
            return
        first, last = cells.cell_of(start), cells.cell_of(end)
        x = self.scroll_x
        if first < x or last > x + width:
            x = first if last - first >= width else max(0, first - width // 4)
        self.jump(self.first_row(line) - height // 2, x=x)

    # -- scrolling ---------------------------------------------------------------------
    @property
    def at_end(self) -> bool:
        return self.scroll_y >= self.max_scroll_y

    def top_line(self) -> int:
        """Absolute number of the line at the top of the view."""
        return self.base + self._line_at(round(self.scroll_y), self.wrap)

    def bottom_line(self) -> int:
        bottom = round(self.scroll_y) + max(0, self.scrollable_content_region.height - 1)
        return self.base + self._line_at(bottom, self.wrap)

    def jump(self, y: float, x: float | None = None) -> None:
        """Scroll now, even before the first layout has shown the scrollbars."""
        self.scroll_to(
            x=None if x is None else max(0, x),
            y=max(0, y),
            animate=False,
            immediate=True,
            force=True,
        )

    def pan(self, direction: int) -> None:
        """Half a screen sideways (nothing to do while wrapping)."""
        if self.wrap:
            return
        step = max(1, self._content_width() // 2)
        self.jump(self.scroll_y, x=self.scroll_x + direction * step)

    def follow_end(self) -> None:
        self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)

    def _quietly(self, scroll) -> None:  # type: ignore[no-untyped-def]
        self._quiet = True
        try:
            scroll()
        finally:
            self._quiet = False

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value < old_value and new_value < self.max_scroll_y and not self._quiet:
            self.post_message(self.ScrolledUp())
        elif new_value > old_value and not self._quiet:
            self.post_message(self.ScrolledDown())
