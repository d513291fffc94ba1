"""`wait --until` on a terminal job: its screen's rows are matched as they become final
(`term.rows.ScreenRows`), not the lines of its bytes, where a full-screen program's text
is cut by escapes and what it overwrote is still there."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from jobs_tui.engine import JobError
from jobs_tui.engine.logs.rawtail import read_sizes, term_size

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager
    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.engine.session.waiting import LineMatch
    from jobs_tui.term.rows import ScreenRows

PRIME_BYTES = 128 * 1024  # what was written before the wait, fed to know the screen


class RowScanner:
    """`waiting.Scanner` over a terminal's rows: the first final row that matches."""

    def __init__(self, rows: ScreenRows, pattern: re.Pattern[str], job_id: str) -> None:
        self.rows = rows
        self.pattern = pattern
        self.job_id = job_id
        self.offset = 0  # where the bytes fed so far end: a match's offset (rows have none)

    def _test(self, rows: list[str], offset: int) -> LineMatch | None:
        from jobs_tui.engine.session.waiting import LineMatch  # loaded by the wait that calls this

        for row in rows:
            if self.pattern.search(row):
                return LineMatch(self.job_id, row, offset)
        return None

    def feed(self, data: bytes, offset: int) -> LineMatch | None:
        self.offset = offset + len(data)
        self.rows.at = offset
        return self._test(self.rows.feed(data), offset)

    def finish(self) -> LineMatch | None:
        return self._test(self.rows.finish(), self.offset)


def screen_scanner(jm: JobManager):  # type: ignore[no-untyped-def]
    """The `screen_scanner` for `JobManager.wait_many`: a terminal job's scanner, its
    emulator primed with what the log held before `position` (those rows are not new)."""
    from jobs_tui.term.rows import ScreenRows

    def make(record: JobRecord, pattern: re.Pattern[str], position: int) -> RowScanner:
        start = max(0, position - PRIME_BYTES)
        try:
            sizes = read_sizes(jm.log_files(record)[0])
        except JobError:
            sizes = ()
        rows = ScreenRows(*term_size(record), sizes=sizes, at=start)
        if position:
            try:
                got = jm.follow(record.id, start).read(position - start)
                rows.at = got.offset
                rows.prime(got.data[: position - got.offset], got.offset == 0)
            except JobError:
                pass
        return RowScanner(rows, pattern, record.id)

    return make
