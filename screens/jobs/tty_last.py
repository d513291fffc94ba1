"""A terminal job's latest line for the detail pane: the last non-blank row of its
screen, emulated from the log's last bytes as the terminal pane emulates them
(`jobs_tui.term`), not the last line of its bytes (vim's would be `▽ ~ ~ ~ … All`)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from jobs_tui.engine.logs.rawtail import LAST_LINE_BYTES, read_tail
from jobs_tui.term.text import render

if TYPE_CHECKING:
    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.screens.widgets.source import JobSource, LogFollow


class TtyLatest:
    """A `latest_line` reader for one terminal job: `await TtyLatest(source, record)(id)`."""

    def __init__(self, source: JobSource, record: JobRecord) -> None:
        self._source = source
        self._record = record

    def read(self) -> str:
        """Blocking: read the log's last LAST_LINE_BYTES and emulate them (a few ms)."""
        record = self._record

        def follow_at(position: int) -> LogFollow:
            return self._source.follow(record.id, position)

        tail = read_tail(follow_at, record, LAST_LINE_BYTES)  # type: ignore[arg-type]
        return render(tail.data, tail.cols, tail.rows, whole=tail.whole).last_line

    async def __call__(self, job_id: str) -> str | None:
        return await asyncio.to_thread(self.read)
