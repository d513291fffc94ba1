"""Rows, outcome lines and durations shared by the command line and the screens (plain strings)."""

from __future__ import annotations

import dataclasses

from .endedby import KERNEL_OOM
from .model import JobRecord, JobStatus

TYPE_CHECKING = False  # not `typing`: short command-line calls import this module
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    class PortLike(Protocol):
        """A listening port as `procs.proctable.Port` has it."""

        @property
        def port(self) -> int: ...
        @property
        def proto(self) -> str: ...

    class UsageLike(Protocol):
        """What `usage_line` reads of a `procs.resources.JobUsage` (the records sit below
        the process table: they name the shape, not the class)."""

        @property
        def cpu_percent(self) -> float | None: ...
        @property
        def rss_bytes(self) -> int: ...
        @property
        def process_count(self) -> int: ...
        @property
        def ports(self) -> Sequence[PortLike]: ...


GLYPHS = {
    JobStatus.RUNNING: "▸",
    JobStatus.EXITED: "✓",
    JobStatus.FAILED: "✗",
    JobStatus.KILLED: "■",
    JobStatus.UNKNOWN: "?",
}
LABEL_COLUMNS = 48


def glyph(record: JobRecord) -> str:
    return GLYPHS[record.status]


def duration(ms: float) -> str:
    """`0.4s`, `12.0s`, `3m04s`, `1h02m`: short, and stable in width while it ticks."""
    seconds = max(0.0, ms / 1000)
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def elapsed_ms(record: JobRecord, now_ms: float) -> float:
    end = record.finished_at if record.finished_at is not None else now_ms
    return max(0.0, end - record.started_at)


def outcome(record: JobRecord, now_ms: float) -> str:
    """`✓ exit 0 · 12.0s`, `✗ exit 2 · 3.1s`, `■ killed · SIGTERM`, `■ killed by deadline · …`;
    a declared job's `✗ exit 1 · crash loop after 3 restarts · 5.2s` and `✗ never ran: db
    ended before it was ready (exit 1) · 0.4s`."""
    took = duration(elapsed_ms(record, now_ms))
    mark = glyph(record)
    if record.exit_not_written:  # a reader's view: the shim keeps what it could not write
        if record.status is JobStatus.UNKNOWN:  # the shim did not answer
            return f"{mark} {not_written(record)} · {took}"
        known = outcome(dataclasses.replace(record, exit_not_written=None), now_ms)
        head, _, tail = known.rpartition(" · ")
        return f"{head} · not yet written: {record.exit_not_written} · {tail}"
    if record.status is JobStatus.RUNNING:
        return f"{mark} running · {took}"
    left = remaining_note(record)
    if left:
        took = f"{left} · {took}"
    if record.end_reason == "dependency":  # a declared job that never ran
        why = record.phase_detail or "a dependency did not get there"
        return f"{mark} never ran: {why} · {took}"
    if record.status is JobStatus.EXITED:
        return f"{mark} exit 0 · {took}"
    if record.status is JobStatus.FAILED:
        if record.end_reason == "crash-loop":
            return f"{mark} exit {record.exit_code} · {crash_loop(record)} · {took}"
        return f"{mark} exit {record.exit_code} · {took}"
    if record.status is JobStatus.KILLED:
        why = {
            "deadline": "killed by its deadline",
            "owner-gone": "killed: its session ended",
            "shim-gone": "killed · supervisor gone",
        }
        said = why.get(record.end_reason or "", "killed")
        if said == "killed" and record.ended_by is not None and record.ended_by.by == KERNEL_OOM:
            return f"{mark} {record.ended_by.words()} · {took}"  # the kernel's, not ours
        return f"{mark} {said} · {record.signal} · {took}"
    return f"{mark} unknown · exit code not recorded · {took}"


def crash_loop(record: JobRecord) -> str:
    """`crash loop after 3 restarts`: a declared job that exited again past max_restarts."""
    count = record.restarts or 0
    return f"crash loop after {count} restart{'' if count == 1 else 's'}"


def not_written(record: JobRecord) -> str:
    """`ended · exit code not yet written: disk full`: all a reader knows of a job whose
    shim keeps its exit code but did not answer (see engine/session/unwritten.py)."""
    return f"ended · exit code not yet written: {record.exit_not_written}"


def remaining_note(record: JobRecord) -> str:
    """`1 process still running`: a finished job's tree that lives on (or "")."""
    left = record.remaining_processes
    if record.running or left <= 0:
        return ""
    return f"{left} process{'' if left == 1 else 'es'} still running"


def ended_words(record: JobRecord) -> str | None:
    """Who or what ended a finished job (`killed · SIGTERM · by the command line (session
    cli)`), for `status` and the detail pane; None while it runs or when nobody recorded it."""
    if record.running or record.ended_by is None:
        return None
    return record.ended_by.words()


def outcome_line(record: JobRecord, now_ms: float) -> str:
    """The transcript's one-line result: `✓ j1 tests · exit 0 · 12.0s`."""
    text = outcome(record, now_ms)
    mark, rest = text.split(" ", 1)
    return f"{mark} {record.id} {record.label} · {rest}"


def char_cells(ch: str) -> int:
    """Terminal columns of one character: 2 for wide/fullwidth (CJK, most emoji), 0 for
    combining marks and format characters, else 1 (no rich in the engine: unicodedata)."""
    if ch < "\u0300":
        return 1
    import unicodedata  # here: most text a short call prints is ASCII

    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def cells(text: str) -> int:
    """Terminal columns of `text`."""
    if text.isascii():
        return len(text)
    return sum(char_cells(ch) for ch in text)


def fit(text: str, width: int) -> str:
    """`text` in exactly `width` columns: clipped with `…`, or padded with spaces."""
    if cells(text) <= width:
        return text + " " * (width - cells(text))
    out, used = [], 0
    for ch in text:
        size = char_cells(ch)
        if used + size > width - 1:
            break
        out.append(ch)
        used += size
    return "".join(out) + "…" + " " * (width - 1 - used)


def row(record: JobRecord, now_ms: float, *, peer: bool = False, width: int = LABEL_COLUMNS) -> str:
    """A list row: `▸ j1  tests                   3.2s`; the label takes `width` columns."""
    label = fit(record.label, width)
    tag = "  peer" if peer else ""
    if record.exit_not_written and record.status is JobStatus.UNKNOWN:
        tag += f"  {not_written(record)}"
    elif record.exit_not_written:
        tag += f"  not yet written: {record.exit_not_written}"
    elif remaining_note(record):  # a finished job that is not done: its outcome says why
        tag += " · " + outcome(record, now_ms).split(" ", 1)[1].rsplit(" · ", 1)[0]
    return f"{glyph(record)} {record.id:<4} {label} {duration(elapsed_ms(record, now_ms)):>7}{tag}"


def summary(records: list[JobRecord], own_session: str) -> str:
    """`N jobs · R running · F failed · P peer` (`1 job · …`)."""
    running = sum(r.running for r in records)
    failed = sum(r.status is JobStatus.FAILED for r in records)
    peers = sum(r.session_id != own_session for r in records)
    jobs = "1 job" if len(records) == 1 else f"{len(records)} jobs"
    return f"{jobs} · {running} running · {failed} failed · {peers} peer"


def earlier_note(earlier_lines: int | None, earlier_bytes: int) -> str:
    """`… 412 earlier lines`, or bytes when the line count was not cheap to know."""
    if earlier_lines:
        return f"… {earlier_lines} earlier lines"
    return f"… {earlier_bytes} earlier bytes"


def lost_note(record: JobRecord) -> str | None:
    """`4096 bytes lost: disk full`: output the shim could not keep, and why (or None)."""
    why = record.log_note or "the log file was deleted while it ran"
    if record.log_lost_bytes:
        return f"{record.log_lost_bytes} bytes lost: {why}"
    return record.log_note


def memory(nbytes: int) -> str:
    """`85 MiB`, `1.2 GiB`, `640 KiB`: RSS in the unit a person reads at a glance."""
    if nbytes >= 1 << 30:
        return f"{nbytes / (1 << 30):.1f} GiB"
    if nbytes >= 1 << 20:
        return f"{nbytes / (1 << 20):.0f} MiB"
    return f"{nbytes / 1024:.0f} KiB"


def usage_line(usage: UsageLike) -> str:
    """The detail pane's line: `cpu 12% · mem 85 MiB · 3 procs · listening :5173`.

    `cpu –` until a second sample gives a rate; UDP ports carry `/udp`; no ports, no
    `listening` part.
    """
    cpu = "cpu –" if usage.cpu_percent is None else f"cpu {usage.cpu_percent:.0f}%"
    count = usage.process_count
    parts = [cpu, f"mem {memory(usage.rss_bytes)}", f"{count} proc{'' if count == 1 else 's'}"]
    if usage.ports:
        shown = [f":{p.port}" + ("/udp" if p.proto == "udp" else "") for p in usage.ports]
        parts.append("listening " + " ".join(shown))
    return " · ".join(parts)
