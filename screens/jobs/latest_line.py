"""The selected job's latest output line, read from its log about once a second and kept fresh."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from jobs_tui.engine import JobError
from jobs_tui.engine.records.model import JobRecord

LATEST_S = 1.0  # how often the selected job's latest line is read from its log
# While the job's log has not grown (its record's byte count, kept by its events), its
# line cannot have changed: read again only this often (a peer's count may lag).
STILL_S = 5.0
KEPT = 256  # lines kept (one per job selected); past it the cache starts again


@dataclass(frozen=True)
class LatestLine:
    """The selected job's latest output line as its log said it, and when."""

    text: str | None  # None: the log does not exist (the record's own line stands)
    read_at: float  # time.monotonic()
    finished_at: int | None  # the record's, when read: a finished job's line is final
    log_bytes: int = 0  # the record's, when read


class LatestLines:
    """The lines read so far, by job id: which is still fresh, and which is due a new read."""

    def __init__(self) -> None:
        self._lines: dict[str, LatestLine] = {}

    def text(self, record: JobRecord) -> str | None:
        """The line read from the log, while it is fresh (a finished job's: for good)."""
        latest = self._lines.get(record.id)
        if latest is None:
            return None
        if record.running and time.monotonic() - latest.read_at > 2 * self._period(record):
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
        return time.monotonic() - latest.read_at >= 0.8 * self._period(record)

    def _period(self, record: JobRecord) -> float:
        latest = self._lines.get(record.id)
        still = latest is not None and latest.log_bytes == record.log_bytes
        return STILL_S if still else LATEST_S

    async def read(
        self,
        job_id: str,
        finished_at: int | None,
        reader: Callable[[str], Awaitable[str | None]],
        log_bytes: int = 0,
    ) -> bool:
        """Read the job's line with `reader`; whether it changed what is shown (False: the
        read failed, or found the line it had: nothing to repaint)."""
        try:
            text = await reader(job_id)
        except (JobError, OSError):
            return False
        if len(self._lines) > KEPT:
            self._lines.clear()
        previous = self._lines.get(job_id)
        self._lines[job_id] = LatestLine(text, time.monotonic(), finished_at, log_bytes)
        return previous is None or (previous.text, previous.finished_at) != (text, finished_at)
