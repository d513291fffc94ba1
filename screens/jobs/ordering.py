"""The list's order and what its rows show of a record: when rows move, repaint, re-read.

No widget here: `JobList` compares records with these to repaint only the rows that
changed, and `JobFeed` fingerprints the table with them to skip a re-read that brought
nothing new.
"""

from __future__ import annotations

from jobs_tui.engine.records.model import JobRecord, JobStatus

from .declared import NAME_CELLS, NotStarted


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
