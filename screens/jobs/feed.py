"""When the job list must change: the records events brought, the slow re-read, the tick.

No widget here: `JobsScreen` asks the feed what changed and paints it. Events are
buffered and applied once a poll; the table is re-read once a second (for what no
event reports: peers) or when an event carried no record; running jobs' times move
once a tick, together.
"""

from __future__ import annotations

import time
from typing import Any

from jobs_tui.engine.records.model import JobRecord
from jobs_tui.screens.widgets.source import Clock, JobSource

from .ordering import any_running, counts_fingerprint, row_order
from .summary import pruned_jobs

RECONCILE_S = 1.0  # how often the whole table is re-read: for what no event reports (peers)
SLACK = 0.9  # a tick or re-read is due this much of its period after the last one: the
# screen's once-a-tick timer fires a hair early or late, and must never skip a period


class JobFeed:
    """The records the list shows, the news since, and the time the rows show."""

    def __init__(self, source: JobSource, clock: Clock) -> None:
        self.source = source
        self.clock = clock
        self.records: list[JobRecord] = []
        self.fingerprint: tuple[object, ...] | None = None
        self.dirty = True
        self.news: dict[str, JobRecord] = {}  # changed records the events brought, by id
        self.resort = False  # a start or a finish among them: rows move, counts change
        self.reconciled_at = 0.0
        self.last_tick = 0.0
        self.shown_ms: float | None = None  # the time the rows and the detail show

    def shown_clock(self) -> float:
        """The time the rows and the detail pane show: the clock as of the list's last tick.

        The elapsed times move once a tick (`repaint_ms`), together, instead of with every
        output event (which would redraw the detail pane five times a second); a moved
        cursor repaints its rows with the same time as the rest of the list."""
        return self.clock() if self.shown_ms is None else self.shown_ms

    def tick_ms(self) -> float:
        return max(100, self.source.config.repaint_ms)

    def on_event(self, event: Any) -> None:
        """An event carries the changed record: its row is updated at the next poll. An
        event without one (another source's) has the table re-read instead."""
        record = getattr(event, "record", None)
        if record is None:
            self.dirty = True
            return
        self.news[record.id] = record
        if getattr(event, "kind", "") != "job-output":
            self.resort = True

    def reread_due(self) -> bool:
        return self.dirty or time.monotonic() - self.reconciled_at >= SLACK * RECONCILE_S

    def take_news(self) -> tuple[dict[str, JobRecord], bool]:
        """The records events brought since the last call, and whether the rows must move."""
        news, self.news = self.news, {}
        resort, self.resort = self.resort, False
        return news, resort

    def merged(self, news: dict[str, JobRecord]) -> list[JobRecord]:
        """The records with the news in, re-sorted (the table is not re-read)."""
        self.shown_ms = self.clock()
        index = {r.id: r for r in self.records} | news
        records = sorted(index.values(), key=row_order)
        self.fingerprint = (counts_fingerprint(records), pruned_jobs(self.source))
        return records

    def tick(self) -> bool:
        """Whether a tick is due (jobs run): their times move, rows repainted, not re-read."""
        now = self.clock()
        if not any_running(self.records) or now - self.last_tick < SLACK * self.tick_ms():
            return False
        self.last_tick = self.shown_ms = now
        return True

    def reread(self, force: bool = False) -> tuple[list[JobRecord], bool] | None:
        """The table re-read, and whether its rows changed (else: a tick is due and the
        records read anew are taken in place); None when neither."""
        self.reconciled_at = time.monotonic()
        self.news.clear()
        self.resort = False
        records = self.source.jobs()
        fingerprint = (counts_fingerprint(records), pruned_jobs(self.source))
        now = self.clock()
        tick_due = any_running(records) and now - self.last_tick >= SLACK * self.tick_ms()
        changed = force or self.dirty or fingerprint != self.fingerprint
        if not (changed or tick_due):
            return None
        self.dirty = False
        self.last_tick = self.shown_ms = now
        if changed:
            self.fingerprint = fingerprint
        return records, changed
