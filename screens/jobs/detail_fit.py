"""How many rows the list's detail pane and its live tail get as the screen and its rows change."""

from __future__ import annotations

from textual.screen import Screen

from jobs_tui.engine.records.model import JobRecord

from .detail import DetailPane
from .live_tail import FIELD_ROWS, MIN_ROWS, LiveTail, fits

DETAIL_ROWS = {"-tall": 8, "-short": 5}  # stacked: the detail's rows when the list needs all
TAIL_SETTLE_S = 0.4  # the selection's live tail opens once the cursor rests this long


class DetailFit:
    """The detail pane's height and the tail's rows (0: hidden), set only when they change."""

    def __init__(self) -> None:
        self.height: int | str | None = None
        self.tail_rows = 0

    def fit_tail(self, screen: Screen[None], detail: DetailPane, tail: LiveTail) -> bool:
        """Wide and tall enough (`live_tail.fits`): the tail takes the rows below the
        detail's first FIELD_ROWS (the same for every job: it does not jump as the cursor
        moves), when they are at least MIN_ROWS; else it is hidden. True when that changed."""
        rows = 0
        zoomed = screen.has_class("-zoomed")  # `z`: the detail has the whole screen
        if zoomed or (
            fits(screen.size.width, screen.size.height) and not screen.has_class("-narrow")
        ):
            rows = detail.content_size.height - FIELD_ROWS
            rows = rows if rows >= MIN_ROWS else 0
        if rows == self.tail_rows:
            return False
        self.tail_rows = rows
        tail.set_class(bool(rows), "-shown")
        if rows:
            tail.styles.height = rows
        detail.reserve(rows)
        return True

    def keep_tail(
        self, tail: LiveTail, shown: bool, record: JobRecord | None, rested: float
    ) -> None:
        """Follow the selected `record` once the cursor has `rested` TAIL_SETTLE_S (moving
        through rows opens none of theirs), only while the list is `shown` and the tail
        has room; anything else stops it (no reader, no wake-ups)."""
        if not shown or not self.tail_rows:
            if tail.job_id is not None:
                tail.stop()
            return
        if rested >= TAIL_SETTLE_S:
            tail.follow(record)

    def fit_detail(self, screen: Screen[None], detail: DetailPane, listed: int) -> None:
        """Stacked below the list, the detail takes the rows the `listed` rows do not
        need, up to its whole height, and at least its outcome and last line (the pane
        fits its fields to the rows it gets); side by side it has the body's height."""
        if not screen.has_class("-narrow") or screen.has_class("-zoomed"):
            height: int | str = "1fr"
        else:
            body = screen.query_one("#jobs-body").size.height
            if body <= 0:
                return
            width = max(1, screen.size.width - detail.styles.gutter.width)
            want = detail.wanted_height(width) + 1  # its top border
            rows = DETAIL_ROWS["-tall" if screen.has_class("-tall") else "-short"]
            height = min(want, max(rows, body - listed))
            height = max(1, min(max(height, min(want, 3)), body - 1))
        if height != self.height:
            self.height = height
            detail.styles.height = height
