"""`Pager`: the log pane's window over the whole retained log, read a page at a time.

The pane holds a bounded window of lines (`LogView.max_lines`). At first it is the tail,
followed as the job writes. Scrolling up near its top reads the page before it (the
rows already on screen stay where they are); Home reads the first page of the retained
log; a find's match outside the window reads the page around it. A window that no longer
reaches the tail stops following (its end is let go when it grows past the bound) and
reads the page after it as the view scrolls down; once it reaches the end again it
follows again. End reads the tail afresh. Every page comes from the source's
`log_lines` (absolute byte offsets, so a rotation in between moves nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jobs_tui.engine import JobError
from jobs_tui.engine.records.sanitize import sanitize_line

from .follow import Follower
from .header import OpenedTail

if TYPE_CHECKING:
    from .screen import LogScreen
    from .view import LogView

PAGE_LINES = 1000  # lines one page read brings
NEAR_ROWS = 3  # screens of rows from the window's edge at which the next page is read


@dataclass
class Window:
    """What the pane knows of the retained log around its window (as of the last read)."""

    first: int = 0  # absolute offset of the oldest retained byte
    origin: int | None = None  # retained lines before the view's line numbered 0, if counted
    attached: bool = True  # the window ends at the live tail: the follower appends to it
    later: int = 0  # bytes after the window's end, when it does not reach the tail


class _Gone(Exception):
    """The screen was closed while a page was read: nothing to put it in."""


class Pager:
    """Owned by the screen; reads pages through `source.log_lines` and puts them in its view."""

    def __init__(self, screen: LogScreen) -> None:
        self.screen = screen
        self.window = Window()
        self.busy = False
        self.owed = 0  # rows a scroll asked for past the window's edge (- up, + down)
        self._reads = 0  # page reads started (the latest one clears `busy`)
        self.enabled = callable(getattr(screen.source, "log_lines", None))

    @property
    def page_lines(self) -> int:
        """Lines a page brings: a third of the window at most, so a page never pushes out
        the rows on screen."""
        return max(1, min(PAGE_LINES, self.screen.main_view.max_lines // 3))

    # -- what the header says -------------------------------------------------------------
    def earlier_lines(self, view: LogView) -> int | None:
        origin = self.window.origin
        return None if origin is None else max(0, origin + view.base)

    def tail(self, opened: OpenedTail, view: LogView) -> OpenedTail:
        """What is not loaded now: before the window, after it, and what rotated away."""
        earlier = max(0, view.first_offset - self.window.first)
        lines = self.earlier_lines(view) if earlier else 0
        later = 0 if self.window.attached else max(1, self.window.later)
        rotated = max(opened.rotated_bytes, self.window.first)  # offsets are absolute
        return OpenedTail(lines, earlier, rotated, opened.note, later)

    # -- the window's edges ------------------------------------------------------------
    def can_read_earlier(self, view: LogView) -> bool:
        return self.enabled and view.first_offset > self.window.first

    def near_top(self, view: LogView) -> bool:
        return view.scroll_y < NEAR_ROWS * max(1, view.scrollable_content_region.height)

    def near_bottom(self, view: LogView) -> bool:
        rows = NEAR_ROWS * max(1, view.scrollable_content_region.height)
        return view.scroll_y > view.max_scroll_y - rows

    def scroll(self, view: LogView, target: float) -> None:
        """Scroll to `target`; what lies past an edge with more log beyond it is owed, and
        moved once that page is in (so a page up moves one page, read or not)."""
        if target < 0 and self.can_read_earlier(view):
            self.owed = min(0, self.owed) + round(target)
        elif target > view.max_scroll_y and self.enabled and not self.window.attached:
            self.owed = max(0, self.owed) + round(target - view.max_scroll_y)
        view.jump(target)

    def want_earlier(self) -> None:
        """Read the page before the window if the view is near its top."""
        view = self.screen.main_view
        if not self.busy and self.can_read_earlier(view) and self.near_top(view):
            self._start(self._earlier(), "earlier lines")

    def want_later(self) -> None:
        """Read the page after a window that is not the tail, if the view is near its end."""
        view = self.screen.main_view
        if self.enabled and not self.busy and not self.window.attached and self.near_bottom(view):
            self._start(self._later(), "later lines")

    def head(self) -> bool:
        """Home: the first page of the retained log (False: the window holds it already)."""
        if not self.can_read_earlier(self.screen.main_view):
            return False
        self._start(self._around(self.window.first, top=True), "the first lines")
        return True

    def to_tail(self) -> bool:
        """End: the tail afresh (False: the window is the tail already)."""
        if not self.enabled or self.window.attached:
            return False
        self._start(self._tail(), "the tail")
        return True

    def around(self, offset: int, then: Any = None) -> None:
        """The page around absolute `offset` (a find's match), then `then()`."""
        self._start(self._around(offset, then=then), "the lines around a match")

    # -- reading -----------------------------------------------------------------------
    def _start(self, work: Any, what: str) -> None:
        """One read at a time: a new one (Home, End, a match) replaces one in flight."""
        self.busy = True
        self._reads += 1
        self.screen.run_worker(
            self._guarded(work, self._reads),
            name=f"read {what}",
            group="log-page",
            exclusive=True,
            exit_on_error=False,
        )

    async def _guarded(self, work: Any, number: int) -> None:
        try:
            await work
        except _Gone:
            pass
        except JobError as exc:
            message = sanitize_line(str(exc), 300)
            self.screen.notify(message, severity="error", markup=False)
            self.screen.problem = message
        finally:
            if number == self._reads:  # not a read replaced by a newer one, still running
                self.busy = False

    async def _read(self, offset: int | None, before: int = 0, after: int = 0) -> Any:
        screen = self.screen
        page = await screen.source.log_lines(screen.job_id, offset, before=before, after=after)
        if not screen.is_attached:
            raise _Gone
        self.window.first = page.first
        return page

    async def _earlier(self) -> None:
        view = self.screen.main_view
        page = await self._read(view.first_offset, before=self.page_lines)
        if page.end != view.first_offset:  # rotated past the window meanwhile: start again
            return await self._around(view.first_offset)
        rows = view.prepend(page.lines, page.times, page.offsets)
        owed, self.owed = min(0, self.owed), 0
        view.shift(rows + owed)
        if page.earlier_lines is not None:
            self.window.origin = page.earlier_lines - view.base
        # the end goes, never a row on screen (the window may hold a page more meanwhile)
        below = view.line_count - 1 - (view.bottom_line() - view.base)
        over = min(view.line_count - view.max_lines, below)
        if over > 0:
            view.trim_end(over)
            self._detach(page.log_end - view.next_offset)
        self.screen.paged()

    async def _later(self) -> None:
        view = self.screen.main_view
        page = await self._read(view.next_offset, after=self.page_lines)
        if page.start != view.next_offset:  # what followed the window rotated away meanwhile
            self._load(page)
            view.jump(0)
            self.screen.paged()
            return
        dropped = view.append(page.lines, "", page.times, page.offsets, page.end)
        owed, self.owed = max(0, self.owed), 0
        view.shift(owed - dropped)
        if page.at_end:
            self._attach(page)
        else:
            self.window.later = page.log_end - page.end
        self.screen.paged()

    async def _around(self, offset: int, *, top: bool = False, then: Any = None) -> None:
        lines = self.page_lines
        half = 0 if top else lines // 2
        page = await self._read(offset, before=half, after=lines - half)
        self._load(page)
        if top:
            self.screen.main_view.jump(0)
        if then is not None:
            then()
        self.screen.paged()

    async def _tail(self) -> None:
        page = await self._read(None, before=self.screen.tail_lines)
        self._load(page)
        self.screen.paged(tail=True)

    def _load(self, page: Any) -> None:
        view = self.screen.main_view
        self.owed = 0
        view.load(page.lines, page.times, page.offsets, page.end)
        self.window.origin = page.earlier_lines
        if page.at_end:
            self._attach(page)
        else:
            self._detach(page.log_end - page.end)

    def _attach(self, page: Any) -> None:
        """The window reaches the end: follow from where it ends (an unfinished line too)."""
        screen = self.screen
        screen.set_follower(Follower(screen.source.follow(screen.job_id, page.end), page.partial))
        self.window.attached = True
        self.window.later = 0

    def _detach(self, later: int) -> None:
        self.screen.set_follower(None)
        self.window.attached = False
        self.window.later = later

    def recount_later(self) -> bool:
        """A window away from the tail: how much is after it now (the job may write on).
        True when the figure changed (the header says it again)."""
        if self.window.attached or self.busy:
            return False
        screen = self.screen
        try:
            end = screen.source.follow(screen.job_id).position  # the end as it is now
        except JobError:
            return False
        later = max(0, end - screen.main_view.next_offset)
        changed, self.window.later = later != self.window.later, later
        return changed

    def opened(self, first: int, origin: int | None) -> None:
        self.window = Window(first=first, origin=origin)
