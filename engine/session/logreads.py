"""`JobManager`'s log reads: a bounded tail, a search, a pager's lines, a follower.

Each checks its arguments, resolves the id (or declared name) to its record and hands it
to the session's `LogReader` (reading.py); a tail or a search marks the job seen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobs_tui.engine.calls.arguments import check, check_time, compile_regex
from jobs_tui.engine.calls.callschema import MAX_SEARCH
from jobs_tui.engine.logs.follower import LOG_END, LogFollower
from jobs_tui.engine.records.results import InvalidArgument, LogPage, LogsResult, ReadSince

if TYPE_CHECKING:
    from jobs_tui.engine.logs.search import SearchResult
    from jobs_tui.engine.logs.window import LinePage
    from jobs_tui.engine.records.model import JobRecord

    from .reading import LogReader


class LogReads:
    """The reading half of `JobManager` (its `_reader`, `get` and `_mark_seen`)."""

    _reader: LogReader

    if TYPE_CHECKING:

        def get(self, job_id: str) -> JobRecord: ...

        def _mark_seen(self, record: JobRecord) -> None: ...

    def log_files(self, record: JobRecord) -> tuple[str, str]:
        """The job's live log segment and its rotated one (inside the registry directory)."""
        return self._reader.files(record)

    async def logs(
        self,
        job_id: str,
        lines: int | None = None,
        *,
        keep_sgr: bool = False,
        since_ms: int | None = None,
        timestamps: bool = False,
    ) -> LogsResult:
        """A bounded tail: the last `lines` lines (1-2000; default `max_log_lines`).

        `since_ms`: only lines written at or after that wall-clock time (from the line
        holding the first byte written since; the time index dates them). `timestamps`:
        `times` holds each line's wall-clock ms (None where the index does not know).
        """
        check("id", job_id)
        lines = check("lines", lines)
        check_time("since_ms", since_ms)
        check("timestamps", timestamps)
        record = self.get(job_id)
        result = await self._reader.tail(record, lines, keep_sgr, since_ms, timestamps)
        self._mark_seen(record)
        return result

    async def search(
        self,
        job_id: str,
        pattern: str,
        *,
        context: int = 0,
        since_ms: int | None = None,
        limit: int = 200,
    ) -> SearchResult:
        """Lines of the retained log (both segments) matching the Python regex `pattern`.

        `context` lines (0-20) around each match; `since_ms` as for `logs`; at most
        `limit` (1-1000) matching lines, `cut` says how many more matched. Lines are
        sanitized and carry their absolute offset and time (`at_ms`).
        """
        check("id", job_id)
        compiled = compile_regex("grep", pattern)
        context = check("context", context) or 0
        check_time("since_ms", since_ms)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_SEARCH:
            raise InvalidArgument(f"limit {limit!r} is outside 1-{MAX_SEARCH}", "limit")
        record = self.get(job_id)
        result = await self._reader.search(record, compiled, context, since_ms, limit)
        self._mark_seen(record)
        return result

    async def latest_line(self, job_id: str) -> str | None:
        """The job's latest output line, read from its log (its last few KiB), sanitized.

        For a screen: a job whose owner runs no process (a command-line session) has no
        one updating `record.last_line`, but its log grows all the same. None when the
        log does not exist (then `record.last_line` is all there is).
        """
        return await self._reader.latest_line(self.get(job_id))

    async def log_lines(
        self, job_id: str, offset: int | None = None, *, before: int = 0, after: int = 0
    ) -> LinePage:
        """Up to `before` lines ending at absolute byte `offset` of the retained log (None:
        its end) and `after` lines from there, each with its offset and time: a pager's
        page (the log pane reads the whole log this way). At most 2000 lines a side, and
        a few MiB; lines sanitized with SGR colours kept. Does not mark the job seen."""
        check("id", job_id)
        return await self._reader.lines(self.get(job_id), offset, before, after)

    async def page(self, job_id: str, offset: int, limit: int | None) -> LogPage:
        """Lines `offset`.. of the retained log (line-based paging, as `process log` has it)."""
        return await self._reader.page(self.get(job_id), offset, limit)

    async def read_since(self, job_id: str, offset: int, cap: int = 65536) -> ReadSince:
        """Sanitized output from absolute byte `offset` (survives rotation), at most `cap`."""
        return await self._reader.since(self.get(job_id), offset, cap)

    async def log_end(self, job_id: str) -> int:
        """The absolute byte position of the end of the job's output now: where a reader
        that wants only what comes next starts (`read_since`)."""
        return await self._reader.end(self.get(job_id))

    def follow(self, job_id: str, position: int = LOG_END) -> LogFollower:
        """A follower of the job's log from absolute `position` (a tail's `position`; the
        end as it is now by default): one log position for the pane, cursors and --follow."""
        return self._reader.follow(self.get(job_id), position)
