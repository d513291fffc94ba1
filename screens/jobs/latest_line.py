"""The selected job's latest output line, read from its log about once a second and kept fresh."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from jobs_tui.engine import JobError
from jobs_tui.engine.records.model import JobRecord

LATEST_S = 1.0  # how often the selected job's latest line is read from its log
KEPT = 256  # lines kept (one per job selected); past it the cache starts again


@dataclass(frozen=True)
class LatestLine:
    """The selected job's latest output line as its log said it, and when."""

    text: str | None  # None: the log does not exist (the record's own line stands)
    read_at: float  # time.monotonic()
    finished_at: int | None  # the record's, when read: a finished job's line is final


class LatestLines:
    """The lines read so far, by job id: which is still fresh, and which is due a new read."""

    def __init__(self) -> None:
        self._lines: dict[str, LatestLine] = {}

    def text(self, record: JobRecord) -> str | None:
        """The line read from the log, while it is fresh (a finished job's: for good)."""
        latest = self._lines.get(record.id)
        if latest is None:
            return None
        if record.running and time.monotonic() - latest.read_at > 2 * LATEST_S:
            return None
        if not record.running and latest.finished_at != record.finished_at:
            return None
        return latest.text

    def due(self, record: JobRecord) -> bool:
        """Not read yet, or read long enough ago; a finished job's line is read once."""
        latest = self._lines.get(record.id)
        if latest is None:
            return True
        if not record.running and latest.finished_at == record.finished_at:
            return False  # final
        return time.monotonic() - latest.read_at >= 0.8 * LATEST_S

    async def read(
        self,
        job_id: str,
        finished_at: int | None,
        reader: Callable[[str], Awaitable[str | None]],
    ) -> bool:
        """Read the job's line with `reader`; False when the read failed (nothing kept)."""
        try:
            text = await reader(job_id)
        except (JobError, OSError):
            return False
        if len(self._lines) > KEPT:
            self._lines.clear()
        self._lines[job_id] = LatestLine(text, time.monotonic(), finished_at)
        return True
