"""`open_log`: the log pane's first read, a tail, and a follower placed exactly where it ended.

So no line is shown twice and none is skipped, and an unfinished last line is the
follower's to show (it re-reads its bytes, so what comes next joins it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jobs_tui.screens.widgets.source import JobSource

from .follow import Follower
from .header import OpenedTail


@dataclass
class OpenedLog:
    """What the pane shows first, and how it goes on."""

    lines: list[str]  # complete lines, sanitized, SGR kept
    times: list[int | None] | None  # when each of them was written (None: not known)
    partial_time: int | None  # when the unfinished last line began, if the follower re-reads it
    follower: Follower
    path: str
    tail: OpenedTail
    offsets: list[int] | None = None  # where each line starts in the log (a paging source)
    next_offset: int = -1  # where the line after the last complete one starts
    first: int = 0  # absolute offset of the oldest retained byte
    earlier_lines: int | None = None  # retained lines before the first one shown, if counted


async def open_log(source: JobSource, job_id: str, tail_lines: int) -> OpenedLog:
    """Raises `JobError` (the job or its log cannot be read)."""
    if callable(getattr(source, "log_lines", None)):
        return await _open_paged(source, job_id, tail_lines)
    result = await source.logs(job_id, lines=tail_lines, keep_sgr=True, timestamps=True)
    lines = list(result.lines)
    times: list[int | None] = list(getattr(result, "times", None) or [])
    partial = getattr(result, "partial_bytes", 0)
    position = getattr(result, "position", None)
    partial_time = None
    if position is not None and 0 < partial <= position:
        # the unfinished last line is the follower's: it re-reads its bytes, so what
        # comes next joins it exactly as a fresh open would show it
        lines = lines[:-1]
        partial_time = times[len(lines)] if len(times) > len(lines) else None
        log = source.follow(job_id, position - partial)
    elif position is not None:  # continue exactly where the tail ended
        log, partial = source.follow(job_id, position), 0
    else:  # a source that cannot say: from the end as it is now (may skip, never repeat)
        log, partial = source.follow(job_id), 0
    kept = times[: len(lines)] if len(times) >= len(lines) else None
    return OpenedLog(
        lines, kept, partial_time, Follower(log, partial), result.log_file, OpenedTail.of(result)
    )


async def _open_paged(source: Any, job_id: str, tail_lines: int) -> OpenedLog:
    """A source that reads pages: the tail is a page (each line with its offset, so the
    pane can read on from either end); a one-line tail read names the file and what
    rotated away or was lost."""
    facts = await source.logs(job_id, lines=1)
    page = await source.log_lines(job_id, None, before=tail_lines)
    known = OpenedTail.of(facts)
    tail = OpenedTail(page.earlier_lines, page.start - page.first, known.rotated_bytes, known.note)
    follower = Follower(source.follow(job_id, page.end), page.partial)
    return OpenedLog(
        list(page.lines),
        list(page.times),
        None,
        follower,
        facts.log_file,
        tail,
        list(page.offsets),
        page.end,
        page.first,
        page.earlier_lines,
    )
