"""`LogFinder`: the log pane's find (`/`, `n`, `N`) and filter mode (`&`), apart from its wiring.

Which lines match, which match is current, and the counts the find and filter bars show.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .list_filter import ListFilter
from .log_text import contains, plain_of
from .log_view import LogView

if TYPE_CHECKING:
    from .log_screen import LogScreen


class LogFinder:
    """Owned by the screen: `pause` stops following (a match above the tail is shown),
    `changed` repaints the footer. Reads the screen's public state (`view`, `find_bar`)."""

    def __init__(
        self, screen: LogScreen, *, pause: Callable[[], None], changed: Callable[[], None]
    ) -> None:
        self.screen = screen
        self.pause = pause
        self.changed = changed

    # -- find --------------------------------------------------------------------------
    def find(self, query: str) -> None:
        """The find field changed: the current match is the last at or above the bottom."""
        view = self.screen.view
        view.search(query, near_line=view.bottom_line())
        self.goto_current()
        self.show_count()
        self.changed()

    def close_find(self) -> None:
        screen = self.screen
        screen.find_bar.close()
        screen.view.search("")
        screen.set_focus(None)
        self.changed()

    def show_count(self) -> None:
        view = self.screen.view
        self.screen.find_bar.show_count(view.current, len(view.matches), view.query_text)

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
        """`shown of held`, kept true as lines arrive (not only when the text changes)."""
        filtered = self.screen.query_one("#jobs-log-filtered", LogView)
        self.screen.query_one(ListFilter).show_count(
            filtered.line_count, self.screen.main_view.line_count
        )

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
