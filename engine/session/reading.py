"""Reading jobs' logs: bounded tails, line pages, byte positions, always sanitized.

`LogReader` reads for a record it is given (the manager looks records up and marks them
seen); the functions below are pure.
"""

from __future__ import annotations

import asyncio
import os
import re
from typing import TYPE_CHECKING

from jobs_tui.engine.calls.callschema import MAX_LINES
from jobs_tui.engine.logs.follower import LOG_END, LogFollower, read_sanitized
from jobs_tui.engine.logs.search import SearchResult, read_times, search
from jobs_tui.engine.logs.segments import (
    LogMissing,
    LogRefused,
    TailRead,
    open_pair,
    read_page,
    read_tail,
)
from jobs_tui.engine.logs.window import LinePage, read_lines
from jobs_tui.engine.records.format import lost_note
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.results import (
    InvalidArgument,
    JobError,
    LogPage,
    LogsResult,
    ReadSince,
    Refused,
)
from jobs_tui.engine.records.sanitize import LINE_LIMIT, sanitize_line, sanitize_log
from jobs_tui.engine.shim.protocol import previous_of
from jobs_tui.engine.shim.timeindex import offset_since, time_at

if TYPE_CHECKING:
    from jobs_tui.engine.config import Config
    from jobs_tui.engine.registry.paths import RegistryPaths


class LogReader:
    """Reads a job's log for its record: paths only inside the registry, text sanitized."""

    def __init__(self, paths: RegistryPaths, config: Config) -> None:
        self.paths = paths
        self.config = config

    def files(self, record: JobRecord) -> tuple[str, str]:
        """The live segment and the rotated one; refused outside the registry directory."""
        live = self.paths.inside(record.log_path)
        if live is None:
            raise Refused(
                f"{record.id}: its log path lies outside the registry directory; not opened",
                "id",
            )
        return str(live), previous_of(str(live))

    async def tail(
        self,
        record: JobRecord,
        lines: int | None,
        keep_sgr: bool,
        since_ms: int | None = None,
        timestamps: bool = False,
    ) -> LogsResult:
        """The last `lines` lines (default `max_log_lines`, at most 2000); see `JobManager.logs`."""
        live, previous = self.files(record)
        count = min(lines or self.config.max_log_lines, MAX_LINES)
        try:
            tail: TailRead = await asyncio.to_thread(read_tail, live, previous, count)
            records = read_times(live) if since_ms is not None or timestamps else []
        except LogRefused as exc:
            raise JobError(f"{record.id}: its log {exc.strerror}; not read", "id") from exc
        except LogMissing as exc:
            state = "keeps running" if record.running else f"is {record.status.value}"
            raise JobError(
                f"{record.id}: its log {os.path.basename(live)} no longer exists "
                f"(deleted?); the job {state}",
                "id",
            ) from exc
        dropped = max(0, record.log_bytes - tail.size) if tail.rotated else 0
        if since_ms is not None:
            return self._since(record, tail, records, since_ms, keep_sgr, timestamps, live)
        text = sanitize_log(tail.text(), keep_sgr=keep_sgr)
        shown, partial = split_lines(tail.data, keep_sgr=keep_sgr)
        times = _times(records, tail.position - len(tail.data), tail.data) if timestamps else []
        return LogsResult(
            job=record,
            text=text,
            lines=shown,
            truncated=tail.truncated or dropped > 0 or bool(record.log_lost_bytes),
            # log_bytes counts lost bytes too: add them only when `dropped` did not.
            earlier_bytes=tail.earlier_bytes + (dropped or record.log_lost_bytes),
            earlier_lines=tail.earlier_lines if not (dropped or record.log_lost_bytes) else None,
            log_file=live,
            note=lost_note(record),
            position=tail.position,
            partial_bytes=partial,
            rotated_bytes=dropped,
            times=times,
            retained_from=tail.position - tail.size,
        )

    def _since(
        self,
        record: JobRecord,
        tail: TailRead,
        records: list[tuple[int, int]],
        since_ms: int,
        keep_sgr: bool,
        timestamps: bool,
        live: str,
    ) -> LogsResult:
        """The tail's lines written at or after `since_ms` (from the line holding the first
        byte written since); `truncated` when more lines since then exist than were read."""
        first = tail.position - len(tail.data)
        boundary = offset_since(records, since_ms)
        if boundary is None:
            boundary = tail.position  # nothing written since then
        starts = _line_starts(tail.data)
        keep = len(tail.data)
        for rel in starts:
            end = _line_end(tail.data, rel)
            if first + end > boundary or (end == len(tail.data) and first + end >= boundary):
                keep = rel
                break
        data = tail.data[keep:]
        if boundary >= tail.position:
            data = b""
        cut = first > boundary  # lines written since then start before the tail
        shown, partial = split_lines(data, keep_sgr=keep_sgr)
        return LogsResult(
            job=record,
            text=sanitize_log(data.decode("utf-8", "replace"), keep_sgr=keep_sgr),
            lines=shown,
            truncated=cut,
            earlier_bytes=first - boundary if cut else 0,
            earlier_lines=None if cut else 0,
            log_file=live,
            note=lost_note(record),
            position=tail.position,
            partial_bytes=partial,
            times=_times(records, tail.position - len(data), data) if timestamps else [],
            retained_from=tail.position - tail.size,
        )

    async def search(
        self,
        record: JobRecord,
        pattern: re.Pattern[str],
        context: int,
        since_ms: int | None,
        limit: int,
    ) -> SearchResult:
        live, previous = self.files(record)
        try:
            return await asyncio.to_thread(
                search, live, previous, pattern, context=context, since=since_ms, limit=limit
            )
        except LogRefused as exc:
            raise JobError(f"{record.id}: its log {exc.strerror}; not read", "id") from exc
        except LogMissing as exc:
            raise JobError(f"{record.id}: its log no longer exists (deleted?)", "id") from exc

    async def lines(
        self, record: JobRecord, offset: int | None, before: int, after: int
    ) -> LinePage:
        """A page of lines around absolute byte `offset` (None: the end); see `read_lines`.
        Bad bounds are refused before anything is read."""
        for name, count in (("before", before), ("after", after)):
            if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_LINES:
                raise InvalidArgument(f"{name} {count!r} is outside 0-{MAX_LINES}", name)
        if offset is not None and (isinstance(offset, bool) or not isinstance(offset, int)):
            raise InvalidArgument(f"offset {offset!r} is not a byte offset", "offset")
        live, previous = self.files(record)
        try:
            return await asyncio.to_thread(
                read_lines, live, previous, offset, before=before, after=after
            )
        except LogRefused as exc:
            raise JobError(f"{record.id}: its log {exc.strerror}; not read", "id") from exc
        except LogMissing as exc:
            raise JobError(f"{record.id}: its log no longer exists (deleted?)", "id") from exc

    async def latest_line(self, record: JobRecord) -> str | None:
        """The latest output line read from the log's last few KiB; None with no log."""
        live, previous = self.files(record)
        try:
            return await asyncio.to_thread(read_latest_line, live, previous)
        except LogMissing:
            return None

    async def page(self, record: JobRecord, offset: int, limit: int | None) -> LogPage:
        live, previous = self.files(record)
        try:
            page = await asyncio.to_thread(read_page, live, previous, offset, limit)
        except LogRefused as exc:
            raise JobError(f"{record.id}: its log {exc.strerror}; not read", "id") from exc
        text = sanitize_log("\n".join(page.lines))
        lines = text.split("\n") if page.lines else []
        return LogPage(record, text, lines, page.offset, page.total_lines, live)

    async def since(self, record: JobRecord, offset: int, cap: int) -> ReadSince:
        """Sanitized output from absolute byte `offset`, at most `cap` bytes of it.

        An incomplete UTF-8 sequence or escape at the end is left for the next read while
        more may come (the job runs, or the cap cut it); once the job has ended, its last
        bytes are returned as they are (a cut character shows as U+FFFD, as a tail read
        shows it), so a follower that reads to the end never waits for bytes that never come.
        """
        live, previous = self.files(record)
        return await asyncio.to_thread(
            read_sanitized, record.id, live, previous, offset, cap, record.running
        )

    async def end(self, record: JobRecord) -> int:
        """The absolute byte position of the end of the job's output, now."""
        return (await asyncio.to_thread(self.follow, record, LOG_END)).position

    def follow(self, record: JobRecord, position: int = LOG_END) -> LogFollower:
        """A follower of the log from absolute `position` (the end as it is now by default)."""
        live, previous = self.files(record)
        return LogFollower(record.id, live, previous, position)


def _line_starts(data: bytes) -> list[int]:
    """Where each line of `data` starts (relative), the last unterminated one included."""
    starts = [0] if data else []
    at = data.find(b"\n")
    while at >= 0 and at + 1 < len(data):
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    return starts


def _line_end(data: bytes, start: int) -> int:
    at = data.find(b"\n", start)
    return len(data) if at < 0 else at


def _times(records: list[tuple[int, int]], first: int, data: bytes) -> list[int | None]:
    """The wall time of each line of `data` (whose first byte is at absolute `first`)."""
    return [time_at(records, first + rel) for rel in _line_starts(data)]


def split_lines(data: bytes, keep_sgr: bool = False) -> tuple[list[str], int]:
    """A tail's sanitized lines, and the raw length of its last line if it has no newline yet.

    That unfinished line is the last entry even when it sanitizes to nothing (a lone
    `\\r`, an escape cut in two), so a follower can take it over byte for byte.
    Sanitizing is line-local, so this equals splitting the sanitized text of the whole.
    """
    cut = data.rfind(b"\n") + 1
    lines = sanitize_log(data[:cut].decode("utf-8", "replace"), keep_sgr).split("\n")[:-1]
    partial = len(data) - cut
    if partial:
        lines.append(sanitize_log(data[cut:].decode("utf-8", "replace"), keep_sgr))
    return lines, partial


LATEST_WINDOW = 4096  # bytes read from the end of a log for its latest line


def read_latest_line(
    live: str, previous: str, *, limit: int = LINE_LIMIT, window: int = LATEST_WINDOW
) -> str:
    """The last line with visible text in the last `window` bytes of a log, sanitized.

    A line that starts before the window is shown with a leading `…`; one longer than
    `limit` ends with `…` (as `sanitize_line` clips). Raises `LogMissing`.
    """
    pair = open_pair(live, previous)
    try:
        start = max(0, pair.size - window)
        data = pair.read(start, pair.size)
    finally:
        pair.close()
    return latest_of(data, cut=start > 0, limit=limit)


def latest_of(data: bytes, *, cut: bool, limit: int = LINE_LIMIT) -> str:
    """The latest line of `data`; `cut`: `data` starts somewhere inside the log."""
    if cut:
        data = data.lstrip(bytes(range(0x80, 0xC0)))  # the rest of a character cut in two
    parts = data.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    for index in range(len(parts) - 1, -1, -1):
        line = sanitize_line(parts[index], limit)
        if not line:
            continue
        if index == 0 and cut and "\r" not in parts[index].rstrip("\r"):
            return "…" + sanitize_line(parts[index], limit - 1)  # its start is not in `data`
        return line
    return ""
