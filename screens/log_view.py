"""`LogView`: a bounded window of log lines, drawn line by line, with search highlights.

Lines arrive sanitized with SGR colours kept; colours are rendered, and search runs
over the same text with the colours stripped. The window holds at most `max_lines`:
older lines fall off the top, and a paused view is shifted so it does not move.

Lines are held whole. Only what is on screen is drawn: the visible cells of a row
(scrolled sideways), or, with `wrap`, one screen-wide piece of a line per row, never
splitting a wide character.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_right
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .cells import CellMap
from .css import stylesheet

SGR = re.compile(r"\x1b\[[0-9;:]*m")
TEXT_CACHE = 512
TIME_COLUMNS = 9  # `12:03:04 ` beside each line with `T`
NO_TIME = "--:--:-- "


def time_text(ms: int | None) -> str:
    """The wall-clock time a line was written, local, to the second (`--:--:--` unknown)."""
    if ms is None:
        return NO_TIME
    return time.strftime("%H:%M:%S ", time.localtime(ms / 1000))


def plain_of(line: str) -> str:
    return (SGR.sub("", line) if "\x1b" in line else line).expandtabs()


def make_text(raw: str) -> Text:
    text = Text.from_ansi(raw) if "\x1b" in raw else Text(raw)
    text.expand_tabs()
    text.no_wrap = True
    text.end = ""
    return text


def slice_text(text: Text, start: int, end: int) -> Text:
    """Characters `[start, end)` of `text` with their styles; cheap on a long line."""
    if start == 0 and end >= len(text.plain):
        return text.copy()
    spans = [
        Span(max(s, start) - start, min(e, end) - start, style)
        for s, e, style in text.spans
        if e > start and s < end
    ]
    return Text(text.plain[start:end], style=text.style, spans=spans, end="", no_wrap=True)


def find_all(haystack: str, needle: str) -> list[tuple[int, int]]:
    spans, start = [], haystack.find(needle)
    while start >= 0:
        spans.append((start, start + len(needle)))
        start = haystack.find(needle, start + max(1, len(needle)))
    return spans


def width_of(plain: str) -> int:
    return len(plain) if plain.isascii() else cell_len(plain)


class LogView(ScrollView, can_focus=False):
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

    def __init__(
        self, max_lines: int = 10_000, *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.max_lines = max(1, max_lines)
        self._lines: list[str] = []
        self._times: list[int | None] = []  # wall-clock ms each line was written, if known
        self.partial_time: int | None = None
        self._plain: list[str] = []
        self._cells: list[int] = []
        self.base = 0  # absolute number of the first line held
        self.partial = ""
        self._partial_plain = ""
        self._width = 0
        self._texts: dict[int, Text] = {}
        self._maps: dict[int, CellMap] = {}
        self._partial_text: Text | None = None
        self._partial_map: CellMap | None = None
        # wrap mode: rows per line as running totals, minus the rows of lines let go
        self._wrap_width = 0
        self._row_ends: list[int] = []
        self._row_base = 0
        self._partial_rows = 0
        self._quiet = False  # a scroll made by the view itself, not the user
        self.query_text = ""
        self.matches: list[tuple[int, int, int]] = []  # (absolute line, start, end)
        self._by_line: dict[int, list[tuple[int, int]]] = {}
        self.current = -1

    # -- content -----------------------------------------------------------------------
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
        fold = text == text.lower()
        picked = [
            i for i, plain in enumerate(self._plain) if text in (plain.lower() if fold else plain)
        ]
        return [self._lines[i] for i in picked], [self._times[i] for i in picked]

    def load(self, lines: list[str], times: list[int | None] | None = None) -> None:
        self._lines, self._plain, self._cells, self.base, self._width = [], [], [], 0, 0
        self._times = []
        self._texts.clear()
        self._maps.clear()
        self._row_ends, self._row_base = [], 0
        self.partial = self._partial_plain = ""
        self._partial_text = self._partial_map = None
        self.append(lines, "", times)

    def append(self, lines: list[str], partial: str, times: list[int | None] | None = None) -> int:
        """Add complete lines and set the unfinished one; returns rows dropped off the top.

        The unfinished line is drawn from its own cache entry, so the row it used to
        occupy is drawn from the completed line once it ends.
        """
        first_new = self.base + len(self._lines)
        wrap_width = self._wrap_width if self.wrap else 0
        if times is None or len(times) != len(lines):
            times = [None] * len(lines)
        self._times.extend(times)
        for line in lines:
            plain = plain_of(line)
            width = width_of(plain)
            self._lines.append(line)
            self._plain.append(plain)
            self._cells.append(width)
            if width > self._width:
                self._width = width
            if wrap_width:
                rows = self._line_rows(self.base + len(self._lines) - 1, plain, width)
                self._row_ends.append(
                    (self._row_ends[-1] if self._row_ends else self._row_base) + rows
                )
        if self.query_text and lines:
            self._search_from(first_new)
        if partial != self.partial:
            self.partial = partial
            self._partial_plain = plain_of(partial) if partial else ""
            self._partial_text = self._partial_map = None
            self._width = max(self._width, width_of(self._partial_plain))
        if wrap_width:
            self._partial_rows = self._count_partial_rows()
        dropped = max(0, len(self._lines) - self.max_lines)
        dropped_rows = dropped
        if dropped:
            if wrap_width:
                new_base = self._row_ends[dropped - 1]
                dropped_rows = new_base - self._row_base
                self._row_base = new_base
                del self._row_ends[:dropped]
            del self._lines[:dropped]
            del self._times[:dropped]
            del self._plain[:dropped]
            del self._cells[:dropped]
            self.base += dropped
            self._drop_matches_before(self.base)
            self._texts = {k: v for k, v in self._texts.items() if k >= self.base}
            self._maps = {k: v for k, v in self._maps.items() if k >= self.base}
        self._update_size()
        return dropped_rows

    def _update_size(self) -> None:
        if self.wrap:
            self.virtual_size = Size(self._wrap_width, self.row_count)
        else:
            height = len(self._lines) + (1 if self.partial else 0)
            self.virtual_size = Size(self._width + 1 + self._gutter(), height)
        self.refresh()

    # -- rows: one per line, or several per line when wrapping ---------------------------
    @property
    def row_count(self) -> int:
        if not self.wrap:
            return len(self._lines) + (1 if self.partial else 0)
        held = (self._row_ends[-1] if self._row_ends else self._row_base) - self._row_base
        return held + self._partial_rows

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
        width = self._wrap_width
        if cells <= width:
            return 1
        if plain.isascii():
            return -(-cells // width)
        return self._map_for(absolute, plain).rows(width)

    def _count_partial_rows(self) -> int:
        if not self.partial:
            return 0
        if self._partial_map is None:
            self._partial_map = CellMap(self._partial_plain)
        return self._partial_map.rows(self._wrap_width)

    def _rebuild_rows(self) -> None:
        """Rows per line for the current width (wrap mode); O(lines), long lines aside."""
        self._wrap_width = self._content_width()
        ends, total = [], 0
        for offset, (plain, cells) in enumerate(zip(self._plain, self._cells, strict=True)):
            total += self._line_rows(self.base + offset, plain, cells)
            ends.append(total)
        self._row_ends, self._row_base = ends, 0
        self._partial_rows = self._count_partial_rows()

    def locate(self, row: int) -> tuple[int, int] | None:
        """(line within the window, row within that line) of virtual row `row`."""
        if row < 0:
            return None
        if not self.wrap:
            return (row, 0) if row < len(self._lines) + (1 if self.partial else 0) else None
        target = self._row_base + row
        index = bisect_right(self._row_ends, target)
        if index < len(self._row_ends):
            start = self._row_ends[index - 1] if index else self._row_base
            return index, target - start
        within = target - (self._row_ends[-1] if self._row_ends else self._row_base)
        return (len(self._lines), within) if within < self._partial_rows else None

    def first_row(self, line: int) -> int:
        """The virtual row where window line `line` starts."""
        if not self.wrap:
            return line
        if line <= 0:
            return 0
        ends = self._row_ends
        return (ends[min(line, len(ends)) - 1] if ends else self._row_base) - self._row_base

    def watch_wrap(self, was_wrapped: bool, wrap: bool) -> None:
        """Keep the line at the top of the view where it was."""
        anchor = self._line_at(round(self.scroll_y), was_wrapped)
        if wrap:
            self._rebuild_rows()
        else:
            self._row_ends, self._row_base, self._partial_rows = [], 0, 0
        self._update_size()
        self._quietly(lambda: self.jump(self.first_row(anchor), x=0))

    def on_resize(self) -> None:
        if self.wrap and self._content_width() != self._wrap_width:
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
    def _needle(self) -> tuple[str, bool]:
        """Smart case: an all-lowercase query ignores case."""
        query = self.query_text
        return (query, False) if query != query.lower() else (query, True)

    def _search_from(self, first_abs: int) -> None:
        needle, fold = self._needle()
        needle = needle.lower() if fold else needle
        for offset, plain in enumerate(self._plain[first_abs - self.base :]):
            line_no = first_abs + offset
            spans = find_all(plain.lower() if fold else plain, needle)
            if spans:
                self._by_line[line_no] = spans
                self.matches.extend((line_no, s, e) for s, e in spans)

    def _drop_matches_before(self, first_abs: int) -> None:
        if not self.matches or self.matches[0][0] >= first_abs:
            return
        kept = [m for m in self.matches if m[0] >= first_abs]
        self.current = max(-1, self.current - (len(self.matches) - len(kept)))
        if self.current < 0 and kept:
            self.current = 0
        self.matches = kept
        self._by_line = {k: v for k, v in self._by_line.items() if k >= first_abs}

    def search(self, query: str, near_line: int | None = None) -> None:
        """Find every match; the current one is the last at or above `near_line` (absolute)."""
        self.query_text = query
        self.matches, self._by_line, self.current = [], {}, -1
        if query:
            self._search_from(self.base)
        if self.matches:
            target = self.base + len(self._lines) if near_line is None else near_line
            above = [i for i, m in enumerate(self.matches) if m[0] <= target]
            self.current = above[-1] if above else 0
        self.refresh()

    def step_match(self, delta: int) -> None:
        if self.matches:
            self.current = (self.current + delta) % len(self.matches)
            self.refresh()

    def current_match_line(self) -> int | None:
        """The current match's line within the window."""
        if 0 <= self.current < len(self.matches):
            return self.matches[self.current][0] - self.base
        return None

    def show_current_match(self) -> None:
        """Scroll so the current match is on screen: its row centred, its columns in view."""
        if not 0 <= self.current < len(self.matches):
            return
        absolute, start, end = self.matches[self.current]
        line = absolute - self.base
        cells = self._map_for(absolute, self._plain[line])
        width = self._content_width()
        height = self.scrollable_content_region.height
        if self.wrap:
            starts = cells.row_starts(self._wrap_width)
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

    # -- drawing -----------------------------------------------------------------------
    def _text(self, absolute: int, line: int) -> Text:
        if line >= len(self._lines):
            if self._partial_text is None:
                self._partial_text = make_text(self.partial)
            return self._partial_text
        text = self._texts.get(absolute)
        if text is None:
            text = make_text(self._lines[line])
            if len(self._texts) >= TEXT_CACHE:
                self._texts.clear()
            self._texts[absolute] = text
        return text

    def _map_for(self, absolute: int, plain: str) -> CellMap:
        if absolute >= self.base + len(self._lines):
            if self._partial_map is None:
                self._partial_map = CellMap(self._partial_plain)
            return self._partial_map
        cells = self._maps.get(absolute)
        if cells is None:
            cells = CellMap(plain)
            if len(self._maps) >= TEXT_CACHE:
                self._maps.clear()
            self._maps[absolute] = cells
        return cells

    def render_line(self, y: int) -> Strip:
        strip = self._render_text_row(y)
        if not self.show_times:
            return strip
        place = self.locate(self.scroll_offset.y + y)
        stamp = " " * TIME_COLUMNS
        if place is not None and place[1] == 0:
            line = place[0]
            known = self._times[line] if line < len(self._times) else self.partial_time
            stamp = time_text(known)
        style = self.rich_style + self.get_component_rich_style("log-view--time")
        return Strip.join([Strip([Segment(stamp, style)], TIME_COLUMNS), strip])

    def _render_text_row(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self._content_width()
        base_style = self.rich_style
        place = self.locate(scroll_y + y)
        if place is None:
            return Strip.blank(width, base_style)
        line, row = place
        absolute = self.base + line
        partial = line >= len(self._lines)
        plain = self._partial_plain if partial else self._plain[line]
        text = self._text(absolute, line)
        lead = 0
        if self.wrap:
            starts = self._map_for(absolute, plain).row_starts(self._wrap_width)
            start = starts[row] if row < len(starts) else len(plain)
            end = starts[row + 1] if row + 1 < len(starts) else len(plain)
        elif plain.isascii():
            start, end = min(scroll_x, len(plain)), min(scroll_x + width, len(plain))
        else:
            start, end, lead = self._map_for(absolute, plain).span(scroll_x, width)
        piece = slice_text(text, start, end)
        piece.stylize_before(base_style)
        if partial:
            piece.stylize(self.get_component_rich_style("log-view--partial"))
        spans = self._by_line.get(absolute)
        if spans:
            self._highlight(piece, absolute, spans, start, end)
        segments = list(piece.render(self.app.console))
        strip = Strip(segments or [Segment("", base_style)], piece.cell_len)
        return strip.crop_extend(lead, lead + width, base_style)

    def _highlight(
        self, text: Text, absolute: int, spans: list[tuple[int, int]], first: int, last: int
    ) -> None:
        match: Style = self.get_component_rich_style("log-view--match")
        current = self.matches[self.current] if 0 <= self.current < len(self.matches) else None
        for start, end in spans:
            if end <= first or start >= last:
                continue
            style = match
            if current == (absolute, start, end):
                style = self.get_component_rich_style("log-view--current-match")
            text.stylize(style, max(start, first) - first, min(end, last) - first)
