"""What to do with a running record found on load, and what a finish writes on a record:
pure rules, facts passed in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.records.endedby import UNKNOWN, EndedBy, EndFacts, ended_by
from jobs_tui.engine.records.model import (
    EndReason,
    JobRecord,
    JobStatus,
    outcome,
    valid_exit_status,
)
from jobs_tui.engine.records.sanitize import last_line

if TYPE_CHECKING:
    from .exitfiles import ExitInfo

LAUNCH_WINDOW_MS = 15_000  # a shim reports ready within this (launch's own timeout)


class Plan(StrEnum):
    KEEP = "keep"  # finished already, nothing to do
    SETTLE = "settle"  # its process is gone: settle from the status file, else unknown
    REATTACH = "reattach"  # alive and ours (or adopted and detached): control it again
    PEER = "peer"  # alive and a live peer session's: show it, leave it alone
    KILL_ORPHAN = "kill-orphan"  # alive, non-detached, and its owner is gone: kill it


@dataclass(frozen=True)
class Facts:
    process_alive: bool  # the job (or its supervisor) is alive with a matching start token
    has_exit: bool  # an exact status file exists
    own: bool  # the record is (now) this session's
    adopted: bool  # it came to this session from a dead one just now


def plan(record: JobRecord, facts: Facts) -> Plan:
    if not record.running:
        return Plan.KEEP
    if facts.has_exit or not facts.process_alive:
        return Plan.SETTLE
    if not facts.own:
        return Plan.PEER
    if facts.adopted and not record.detached:
        return Plan.KILL_ORPHAN
    return Plan.REATTACH


def launching(record: JobRecord, now_ms: int) -> bool:
    """Recorded before its shim reported ready, and still within the launch window."""
    return (
        record.running
        and record.pid is None
        and record.shim_pid is None
        and now_ms - record.started_at < LAUNCH_WINDOW_MS
    )


def status_value(value: Any) -> int | None:
    """A raw exit status worth keeping: an int that is an exit code or a signal death."""
    if isinstance(value, int) and not isinstance(value, bool) and valid_exit_status(value):
        return value
    return None


def finish(
    record: JobRecord, info: ExitInfo | None, now_ms: int, signal_name: Callable[[int], str]
) -> None:
    """The record of a job that ended as `info` says (None: nobody knows how: unknown)."""
    if info is None:
        status, code, sig = JobStatus.UNKNOWN, None, None
    else:
        status, code, sig = outcome(info.exit_status, info.reason, info.signal, signal_name)
        record.exit_status = status_value(info.exit_status)
        if info.log_bytes is not None:
            record.log_bytes = info.log_bytes
        # What the log lost, as the shim's end file says: a session that was not watching
        # (a command-line call that ended first) learns it here, never later.
        if info.lost_bytes is not None and info.lost_bytes > record.log_lost_bytes:
            record.log_lost_bytes = info.lost_bytes
        if info.log_note is not None:
            record.log_note = info.log_note[:80]
        # What it left running, as the end file says (a reader that counts again later,
        # remaining.refresh, only looks at a record that says some remain).
        if info.remaining is not None and info.remaining > record.remaining_processes:
            record.remaining_processes = info.remaining
        line = last_line(info.tail) if info.tail else ""
        if line:
            record.last_line = line
        record.end_reason = info.reason or EndReason.EXIT.value
        if info.restarts is not None:  # a declared job's, from its end file
            record.restarts, record.last_exit = info.restarts, info.last_exit
            record.phase, record.waiting_for = "ended", None
            if info.phase_detail is not None:
                record.phase_detail = info.phase_detail
    record.status, record.exit_code, record.signal = status, code, sig
    record.ended_by = who_ended(info, signal_name)
    record.finished_at = (info.finished_at if info and info.finished_at else None) or now_ms
    record.stopping_at = None


def who_ended(info: ExitInfo | None, signal_name: Callable[[int], str]) -> EndedBy:
    """Who or what ended the job, from what its end says (records/endedby.py's rule)."""
    raw = None if info is None else status_value(info.exit_status)
    if info is None or raw is None:
        return EndedBy(UNKNOWN)
    facts = EndFacts(
        exit_code=raw if raw >= 0 else None,
        signal=signal_name(-raw) if raw < 0 else None,
        reason=info.reason,
        door=info.door,
        session=info.door_session,
        requested_signal=info.requested_signal,
        oom_source=info.oom_source,
    )
    return ended_by(facts)
