"""`LogView`: a bounded window of log lines, drawn line by line, with search highlights.

Lines arrive sanitized with SGR colours kept; colours are rendered, and search runs
over the same text with the colours stripped. The window holds at most `max_lines`:
older lines fall off the top, and a paused view is shifted so it does not move.
"""

from __future__ import annotations

import re
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .css import stylesheet

SGR = re.compile(r"\x1b\[[0-9;:]*m")
DISPLAY_CAP = 4000  # characters of one line that are drawn; the rest is cut
WIDTH_CAP = DISPLAY_CAP + 1
TEXT_CACHE = 512


def plain_of(line: str) -> str:
    return (SGR.sub("", line) if "\x1b" in line else line).expandtabs()


def make_text(raw: str) -> Text:
    if len(raw) > DISPLAY_CAP:
        raw = raw[:DISPLAY_CAP]
    text = Text.from_ansi(raw) if "\x1b" in raw else Text(raw)
    text.expand_tabs()
    text.no_wrap = True
    text.end = ""
    return text


def find_all(haystack: str, needle: str) -> list[tuple[int, int]]:
    spans, start = [], haystack.find(needle)
    while start >= 0:
        spans.append((start, start + len(needle)))
        start = haystack.find(needle, start + max(1, len(needle)))
    return spans


class LogView(ScrollView, can_focus=False):
    """The log pane's text. The screen decides following; the view only reports scrolling."""

    DEFAULT_CSS = stylesheet("log_view.tcss")
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "log-view--match",
        "log-view--current-match",
        "log-view--partial",
    }

    class ScrolledUp(Message):
        """The user moved the view up (wheel, scrollbar): the screen pauses following."""

    def __init__(self, max_lines: int = 10_000, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_lines = max(1, max_lines)
        self._lines: list[str] = []
        self._plain: list[str] = []
        self.base = 0  # absolute number of the first line held
        self.partial = ""
        self._width = 0
        self._texts: dict[int, Text] = {}
        self._partial_text: Text | None = None
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
        """Plain text of every row: the complete lines and the unfinished one, if any."""
        return [*self._plain, plain_of(self.partial)] if self.partial else list(self._plain)

    def load(self, lines: list[str]) -> None:
        self._lines, self._plain, self.base, self._width = [], [], 0, 0
        self._texts.clear()
        self.partial = ""
        self._partial_text = None
        self.append(lines, "")

    def append(self, lines: list[str], partial: str) -> int:
        """Add complete lines and set the unfinished one; returns lines dropped off the top.

        The unfinished line is drawn from its own cache entry, so the row it used to
        occupy is drawn from the completed line once it ends.
        """
        first_new = self.base + len(self._lines)
        for line in lines:
            plain = plain_of(line)
            self._lines.append(line)
            self._plain.append(plain)
            width = len(plain) if plain.isascii() else cell_len(plain)
            if width > self._width:
                self._width = min(width, WIDTH_CAP)
        if self.query_text and lines:
            self._search_from(first_new)
        if partial != self.partial:
            self._partial_text = None
        self.partial = partial
        dropped = max(0, len(self._lines) - self.max_lines)
        if dropped:
            del self._lines[:dropped]
            del self._plain[:dropped]
            self.base += dropped
            self._drop_matches_before(self.base)
            self._texts = {k: v for k, v in self._texts.items() if k >= self.base}
        self._update_size()
        return dropped

    def _update_size(self) -> None:
        height = len(self._lines) + (1 if self.partial else 0)
        self.virtual_size = Size(self._width + 1, height)
        self.refresh()

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
        """The current match's row within the window, for scrolling to it."""
        if 0 <= self.current < len(self.matches):
            return self.matches[self.current][0] - self.base
        return None

    # -- scrolling ---------------------------------------------------------------------
    @property
    def at_end(self) -> bool:
        return self.scroll_y >= self.max_scroll_y

    def top_line(self) -> int:
        """Absolute number of the line at the top of the view."""
        return self.base + round(self.scroll_y)

    def bottom_line(self) -> int:
        return self.top_line() + max(0, self.scrollable_content_region.height - 1)

    def jump(self, y: float) -> None:
        """Scroll now, even before the first layout has shown the scrollbars."""
        self.scroll_to(y=max(0, y), animate=False, immediate=True, force=True)

    def scroll_to_line(self, row: int) -> None:
        """Centre window row `row` in the view."""
        self.jump(row - self.scrollable_content_region.height // 2)

    def follow_end(self) -> None:
        self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value < old_value and new_value < self.max_scroll_y:
            self.post_message(self.ScrolledUp())

    # -- drawing -----------------------------------------------------------------------
    def _text(self, absolute: int, row: int) -> Text:
        if row >= len(self._lines):
            if self._partial_text is None:
                self._partial_text = make_text(self.partial)
            return self._partial_text
        text = self._texts.get(absolute)
        if text is None:
            text = make_text(self._lines[row])
            if len(self._texts) >= TEXT_CACHE:
                self._texts.clear()
            self._texts[absolute] = text
        return text

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base_style = self.rich_style
        row = scroll_y + y
        has_partial = bool(self.partial)
        if row >= len(self._lines) + has_partial:
            return Strip.blank(width, base_style)
        absolute = self.base + row
        text = self._text(absolute, row).copy()
        text.stylize_before(base_style)
        if row >= len(self._lines):
            text.stylize(self.get_component_rich_style("log-view--partial"))
        spans = self._by_line.get(absolute)
        if spans:
            self._highlight(text, absolute, spans)
        strip = Strip(text.render(self.app.console), text.cell_len)
        return strip.crop_extend(scroll_x, scroll_x + width, base_style)

    def _highlight(self, text: Text, absolute: int, spans: list[tuple[int, int]]) -> None:
        match: Style = self.get_component_rich_style("log-view--match")
        current = self.matches[self.current] if 0 <= self.current < len(self.matches) else None
        for start, end in spans:
            if current == (absolute, start, end):
                text.stylize(self.get_component_rich_style("log-view--current-match"), start, end)
            else:
                text.stylize(match, start, end)
