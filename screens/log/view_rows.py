"""`ViewRows`: how the log view draws one screen row (its text, colours, matches, time).

A mixin of `LogView`, apart so the view's module keeps to the window's bookkeeping:
only what is on screen is drawn, the visible cells of a row (scrolled sideways) or,
wrapping, one screen-wide piece of a line.
"""

from __future__ import annotations

from functools import partial as partial_fn
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from .cells import CellMap
from .text import TIME_COLUMNS, slice_text, time_text

if TYPE_CHECKING:
    from .line_cache import LineCache
    from .line_matches import LineMatches
    from .wrap_rows import WrapRows


class ViewRows:
    """Reads the view's lines, caches and matches; `LogView` provides them."""

    _lines: list[str]
    _plain: list[str]
    _times: list[int | None]
    _partial_plain: str
    _cache: LineCache
    _matches: LineMatches
    _rows: WrapRows
    _base: Style | None = None  # `_base_style`, forgotten when the styles change
    partial: str
    partial_time: int | None
    base: int
    wrap: bool
    show_times: bool
    if TYPE_CHECKING:
        rich_style: Style
        scroll_offset: Any
        app: Any

        def locate(self, row: int) -> tuple[int, int] | None: ...
        def _content_width(self) -> int: ...
        def get_component_rich_style(self, name: str) -> Style: ...

    # -- drawing -----------------------------------------------------------------------
    def _text(self, absolute: int, line: int) -> Text:
        if line >= len(self._lines):
            return self._cache.partial_text(self.partial)
        return self._cache.text(absolute, self._lines[line])

    def _map_for(self, absolute: int, plain: str) -> CellMap:
        if absolute >= self.base + len(self._lines):
            return self._cache.partial_cells(self._partial_plain)
        return self._cache.cells(absolute, plain)

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
        style = self._base_style() + self.get_component_rich_style("log-view--time")
        return Strip.join([Strip([Segment(stamp, style)], TIME_COLUMNS), strip])

    def _render_text_row(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self._content_width()
        base_style = self._base_style()
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
            starts = self._map_for(absolute, plain).row_starts(self._rows.width)
            start = starts[row] if row < len(starts) else len(plain)
            end = starts[row + 1] if row + 1 < len(starts) else len(plain)
        elif plain.isascii():
            start, end = min(scroll_x, len(plain)), min(scroll_x + width, len(plain))
        else:
            start, end, lead = self._map_for(absolute, plain).span(scroll_x, width)
        marks = self._matches.marks(absolute, start, end)
        draw = partial_fn(self._draw, text, start, end, lead, width, base_style, partial, marks)
        if partial:
            return draw()
        return self._cache.strip((absolute, start, end, lead, width, tuple(marks)), draw)

    def _base_style(self) -> Style:
        """The view's own style, computed from every ancestor's: once, not per row."""
        base = self._base
        if base is None:
            base = self._base = self.rich_style
        return base

    def _draw(
        self,
        text: Text,
        start: int,
        end: int,
        lead: int,
        width: int,
        base_style: Style,
        partial: bool,
        marks: list[tuple[int, int, bool]],
    ) -> Strip:
        piece = slice_text(text, start, end)
        piece.stylize_before(base_style)
        if partial:
            piece.stylize(self.get_component_rich_style("log-view--partial"))
        if marks:
            match: Style = self.get_component_rich_style("log-view--match")
            for first, last, current in marks:
                style = match
                if current:
                    style = self.get_component_rich_style("log-view--current-match")
                piece.stylize(style, first, last)
        segments = list(piece.render(self.app.console))
        strip = Strip(segments or [Segment("", base_style)], piece.cell_len)
        return strip.crop_extend(lead, lead + width, base_style)
