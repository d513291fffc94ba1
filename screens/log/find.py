"""`LogFinder`: the log pane's find (`/`, `n`, `N`) and filter mode (`&`), apart from its wiring.

Find searches the whole retained log through the source's `search` (the engine's, the
same as `jobs-tui logs --grep`): the typed text is plain, escaped into a regex, and
ignores case when it is all lowercase (smart case). Its matching lines are kept by
absolute offset, so `n` / `N` reach a match outside the loaded window (the pager reads
the page around it). The loaded window is searched at once as you type, for the
highlights; the count is the whole log's once the engine answers. Filter mode (`&`)
stays over the loaded window, and its count says so.
"""

from __future__ import annotations

import asyncio
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jobs_tui.engine import JobError
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens.widgets.list_filter import ListFilter

from .text import contains, plain_of, smart_case
from .view import LogView

if TYPE_CHECKING:
    from .screen import LogScreen

SEARCH_LIMIT = 1000  # matching lines one search keeps (the engine's most); more are counted
SEARCH_DELAY_S = 0.3  # typing settles before the whole log is searched


def pattern_of(text: str) -> str:
    """The regex the engine searches for: the text as it is, smart case."""
    return ("(?i)" if smart_case(text) else "") + re.escape(text)


@dataclass
class Hits:
    """The whole log's matching lines for one query (absolute offsets), and the current one."""

    query: str
    offsets: list[int] = field(default_factory=list)
    total: int = 0  # matching lines in the whole log (more than `offsets` when cut)
    current: int = -1

    @property
    def cut(self) -> bool:
        return self.total > len(self.offsets)


class LogFinder:
    """Owned by the screen: `pause` stops following (a match above the tail is shown),
    `changed` repaints the footer. Reads the screen's public state (`view`, `find_bar`)."""

    def __init__(
        self, screen: LogScreen, *, pause: Callable[[], None], changed: Callable[[], None]
    ) -> None:
        self.screen = screen
        self.pause = pause
        self.changed = changed
        self.hits: Hits | None = None  # the whole log's matches, once the engine answered
        self.anchor: int | None = None  # the bottom line's offset when this find began

    @property
    def whole_log(self) -> bool:
        """Find goes through the source's search (else only the loaded window is searched)."""
        screen = self.screen
        return screen.pager.enabled and callable(getattr(screen.source, "search", None))

    # -- find --------------------------------------------------------------------------
    def find(self, query: str) -> None:
        """The find field changed: the current match is the last at or above the bottom."""
        view = self.screen.view
        if self.anchor is None:  # what each text typed is found near: where the find began
            self.anchor = view.offset_of(view.bottom_line() - view.base)
        line = view.line_at_offset(self.anchor) if self.anchor >= 0 else None
        view.search(query, near_line=view.bottom_line() if line is None else view.base + line)
        self.hits = None
        self.goto_current()
        self.show_count()
        self.changed()
        if query and self.whole_log and not self.screen.filter_text:
            self.screen.run_worker(
                self._search(query),
                name="find",
                group="log-find",
                exclusive=True,
                exit_on_error=False,
            )

    async def _search(self, query: str) -> None:
        await asyncio.sleep(SEARCH_DELAY_S)  # a keystroke more cancels this one
        screen = self.screen
        try:
            result = await screen.source.search(
                screen.job_id, pattern_of(query), limit=SEARCH_LIMIT
            )
        except JobError as exc:
            screen.notify(sanitize_line(str(exc), 300), severity="error", markup=False)
            return
        view = screen.view
        if not screen.is_attached or query != view.query_text:
            return
        offsets = [line.offset for line in result.lines if line.match]
        hits = Hits(query, offsets, result.matches)
        self.hits = hits
        if not offsets:
            self.show_count()
            return
        local = view.current_match_line()
        shown = view.offset_of(local) if local is not None else -1
        if shown in offsets:  # the match shown (n / N may have moved it) stays the current one
            hits.current = offsets.index(shown)
            self.show_count()
            return
        bottom = -1 if self.anchor is None else self.anchor
        above = bisect_right(offsets, bottom) - 1 if bottom >= 0 else len(offsets) - 1
        hits.current = max(0, above)
        self._go()
        self.show_count()

    def _go(self) -> None:
        """Show the current hit: in the window, or after reading the page around it."""
        hits = self.hits
        if hits is None or hits.current < 0:
            return
        offset = hits.offsets[hits.current]
        view = self.screen.view
        line = view.line_at_offset(offset)
        if line is not None or self.screen.filter_text:
            self._show(line)
            return
        self.pause()
        self.screen.pager.around(offset, then=lambda: self._show_offset(offset))

    def _show_offset(self, offset: int) -> None:
        self._show(self.screen.view.line_at_offset(offset))

    def _show(self, line: int | None) -> None:
        view = self.screen.view
        if line is None:
            return
        self.pause()
        if view.select_match_on(line):
            view.show_current_match()
        else:  # the engine's text and the pane's differ (a tab, a cut line): the line itself
            view.jump(view.first_row(line) - view.scrollable_content_region.height // 2)
        self.show_count()

    def close_find(self) -> None:
        screen = self.screen
        screen.find_bar.close()
        screen.view.search("")
        self.hits = self.anchor = None
        screen.set_focus(None)
        self.changed()

    def show_count(self) -> None:
        view = self.screen.view
        hits = self.hits
        if hits is not None and hits.query == view.query_text:
            more = "+" if hits.cut else ""
            shown = len(hits.offsets) if hits.cut else hits.total
            self.screen.find_bar.show_count(hits.current, shown, hits.query, more)
            return
        self.screen.find_bar.show_count(view.current, len(view.matches), view.query_text)

    def arrived(self, lines: list[str], starts: list[int]) -> None:
        """New lines at the tail: those that match count too (while nothing was cut)."""
        hits = self.hits
        if hits is not None and not hits.cut and len(starts) == len(lines):
            for line, start in zip(lines, starts, strict=True):
                if start >= 0 and contains(plain_of(line), hits.query):
                    hits.offsets.append(start)
                    hits.total += 1
                    hits.current = max(hits.current, 0)
        self.show_count()

    def goto_current(self) -> None:
        view = self.screen.view
        if view.current_match_line() is not None:
            self.pause()
            view.show_current_match()

    def step(self, delta: int) -> None:
        """`n` / `N`: the next or previous match, or why there is none."""
        view = self.screen.view
        if not view.query_text:
            self.screen.notify("Nothing to find yet: press / and type.", markup=False)
            return
        hits = self.hits
        if hits is not None and hits.query == view.query_text and hits.offsets:
            hits.current = (hits.current + delta) % len(hits.offsets)
            self._go()
            self.show_count()
            return
        if not view.matches:
            self.screen.notify(f"No matches for {view.query_text!r}.", markup=False)
            return
        view.step_match(delta)
        self.goto_current()
        self.show_count()

    # -- filter mode (`&`): only the lines that match ------------------------------------
    def shows(self, line: str) -> bool:
        return contains(plain_of(line), self.screen.filter_text)

    def show_filter_count(self) -> None:
        """`shown of held`, kept true as lines arrive (not only when the text changes);
        `of N loaded lines` when the window is not the whole log."""
        main = self.screen.main_view
        filtered = self.screen.query_one("#jobs-log-filtered", LogView)
        whole = main.first_offset <= self.screen.pager.window.first
        unit = "" if whole and self.screen.pager.window.attached else " loaded lines"
        self.screen.query_one(ListFilter).show_count(filtered.line_count, main.line_count, unit)

    def close_filter(self) -> None:
        screen = self.screen
        screen.query_one(ListFilter).close()
        screen.filter_text = ""
        screen.set_focus(None)
        self.changed()

    def refilter(self, text: str) -> None:
        """The filter's view holds the matching lines (empty `text`: every line is shown)."""
        main = self.screen.main_view
        filtered = self.screen.query_one("#jobs-log-filtered", LogView)
        if text:
            lines, times = main.matching(text)
            filtered.load(lines, times)
            self.show_filter_count()
        main.set_class(bool(text), "-hidden")
        filtered.set_class(not text, "-hidden")
