"""`PagedScrolling`: the log pane's scroll keys and wheel over a window of the whole log.

Apart from the screen so the screen reads as wiring: scrolling near an edge of the
loaded window asks the `Pager` for the page beyond it, Home reads the first page of the
retained log, End the tail. The screen provides `view`, `main_view`, `pager`,
`filter_text`, `problem`, `loaded`, `following`, `new_lines`, `_pause`, `_poll`,
`_finder` and `_show_sub`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .follow import Follower
from .view import LogView

if TYPE_CHECKING:
    from .pages import Pager


class PagedScrolling:
    """A mixin for `LogScreen` (its handlers are found through the class's MRO)."""

    pager: Pager
    _follower: Follower | None
    view: Any
    main_view: Any
    filter_text: str
    problem: str
    loaded: bool
    following: bool
    new_lines: int
    _finder: Any

    if TYPE_CHECKING:

        def _pause(self) -> None: ...
        def _poll(self) -> None: ...
        def _show_sub(self) -> None: ...
        def call_after_refresh(self, callback: Any) -> bool: ...

    # -- pages of the whole log (`Pager` reads them) --------------------------------------
    @property
    def paging(self) -> bool:
        """A page read is in flight."""
        return self.pager.busy

    def set_follower(self, follower: Follower | None) -> None:
        """The pager's window reaches the tail (a follower from its end) or does not (None)."""
        self._follower = follower
        self.main_view.partial_time = None

    def paged(self, tail: bool = False) -> None:
        """A page arrived: the filter and find over the window, the header, following."""
        if self.filter_text:
            self._finder.refilter(self.filter_text)
        if tail:
            self.new_lines = 0
            self.following = True
            self.view.jump(self.view.scroll_y, x=0)
            self.view.follow_end()
            self._poll()
            self.call_after_refresh(self.view.follow_end)  # once a new width is laid out
        self._finder.show_count()
        self._show_sub()

    # -- following and scrolling -------------------------------------------------------
    def on_log_view_scrolled_up(self, _message: LogView.ScrolledUp) -> None:
        if self.loaded:
            self._pause()
            self._read_on(-1)

    def on_log_view_scrolled_down(self, _message: LogView.ScrolledDown) -> None:
        if self.loaded:
            self._read_on(1)

    def _read_on(self, direction: int) -> None:
        """Near an edge of the window: the page beyond it (never in filter mode)."""
        if self.filter_text or not self.loaded or self.problem:
            return
        if direction < 0:
            self.pager.want_earlier()
        else:
            self.pager.want_later()

    def action_scroll(self, delta: int) -> None:
        if delta < 0:
            self._pause()
        self._scroll_to(self.view.scroll_y + delta)
        self._read_on(delta)

    def _scroll_to(self, target: float) -> None:
        if self.filter_text:
            self.view.jump(target)
        else:
            self.pager.scroll(self.view, target)

    def action_page(self, direction: int) -> None:
        if direction < 0:
            self._pause()
        step = max(1, self.view.scrollable_content_region.height - 1)
        self._scroll_to(self.view.scroll_y + direction * step)
        self._read_on(direction)

    def action_top(self) -> None:
        self._pause()
        if self.filter_text or self.problem or not self.pager.head():
            self.view.jump(0)

    def action_follow(self) -> None:
        if not self.filter_text and not self.problem and self.pager.to_tail():
            return  # following again once the tail is read
        self.new_lines = 0
        self.following = True
        self.view.jump(self.view.scroll_y, x=0)
        self.view.follow_end()

    def action_pan(self, direction: int) -> None:
        self.view.pan(direction)
