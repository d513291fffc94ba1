"""When the job list must change: the records events brought, the slow re-read, the tick.

No widget here: `JobsScreen` asks the feed what changed and paints it. Events are
buffered and applied once a poll; the table is re-read once a second (for what no
event reports: peers) or when an event carried no record; running jobs' times move
once a tick, together. The order and what a row shows of a record (`row_order`,
`shown_of`, `counts_fingerprint`) are here too: the list repaints by them.
"""

from __future__ import annotations

import time
from typing import Any

from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.screens.widgets.source import Clock, JobSource

from .declared import NAME_CELLS, NotStarted
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


# -- the order, and what a row shows of a record ----------------------------------------
def row_order(record: JobRecord) -> tuple[bool, int, int]:
    """The list's order, as `JobManager.jobs()` gives it: running first (newest first),
    then finished (most recent first)."""
    return (not record.running, -record.ended_at(), -record.number)


def id_cells(record: JobRecord) -> int:
    """The id column's cells a row needs (a not-started row's name, up to NAME_CELLS)."""
    return min(len(record.id), NAME_CELLS) if isinstance(record, NotStarted) else len(record.id)


def declared_of(record: JobRecord) -> tuple[object, ...]:
    """What a declared job's row shows of its state (`declared.declared_state`)."""
    return (record.phase, record.waiting_for, record.restarts, record.end_reason)


def shown_of(record: JobRecord) -> tuple[object, ...]:
    """What a row shows of a record besides its time (which the tick repaints)."""
    return (
        record.status,
        record.label,
        record.session_id,
        record.stopping_at,
        *declared_of(record),
    )


def counts_fingerprint(records: list[JobRecord]) -> tuple[object, ...]:
    """What a repaint depends on besides the clock; equal tuples need no new rows.

    Not the last line: no row shows it (the detail pane's is read from the log), and a
    printing job changes it every second, which would rebuild the rows every second."""
    return tuple(
        (
            r.id,
            r.status,
            r.session_id,
            r.label,
            r.finished_at,
            r.exit_code,
            r.stopping_at,
            *declared_of(r),
        )
        for r in records
    )


def any_running(records: list[JobRecord]) -> bool:
    return any(r.status is JobStatus.RUNNING for r in records)
