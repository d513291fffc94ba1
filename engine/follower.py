"""One log position and one follower: what the log pane, unread cursors and `logs --follow` use.

A position is an absolute byte offset into a job's whole output (not into one segment
of its rotating log), so it survives rotations: `<id>.log.base` says where the live
segment starts (see logwriter). A tail read (`JobManager.logs`) ends at a position, a
follower continues from one, and an unread cursor is one saved between calls.
"""

from __future__ import annotations

from .logs import LogMissing, LogRefused, SinceRead, read_since
from .results import JobError

READ_CAP = 4 * 1024 * 1024  # bytes one read returns at most; the rest waits for the next
LOG_END = 1 << 62  # a position past any log: "from the end as it is now"


class LogFollower:
    """Reads what a job's log holds from `position` on, and moves past what it returned.

    `read` never blocks and never loads more than `cap`; bytes that rotated away before
    they were read are reported (`skipped`), never silently lost. A follower holds no
    file open between reads, so it needs no closing and survives a deleted segment.
    """

    def __init__(self, job_id: str, live: str, previous: str, position: int = LOG_END) -> None:
        self.job_id = job_id
        self._live = live
        self._previous = previous
        self.position = 0
        self.position = self.read(0).end if position >= LOG_END else max(0, position)

    @property
    def path(self) -> str:
        """The live segment's file: what a watcher (`logwatch.LogWatch`) watches for writes."""
        return self._live

    def read(self, cap: int = READ_CAP) -> SinceRead:
        """Up to `cap` bytes from the position (raw: the caller sanitizes); raises JobError."""
        try:
            got = read_since(self._live, self._previous, self.position, cap)
        except LogRefused as exc:
            raise JobError(f"{self.job_id}: its log {exc.strerror}; not read", "id") from exc
        except LogMissing as exc:
            raise JobError(f"{self.job_id}: its log no longer exists (deleted?)", "id") from exc
        self.position = max(self.position, got.offset + len(got.data))
        return got

    def skip_to(self, position: int) -> int:
        """Move forward to `position` (a reader that fell behind); the bytes passed over."""
        passed = max(0, position - self.position)
        self.position += passed
        return passed
