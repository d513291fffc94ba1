"""One log position and one follower: what the log pane, unread cursors and `logs --follow` use.

A position is an absolute byte offset into a job's whole output (not into one segment
of its rotating log), so it survives rotations: `<id>.log.base` says where the live
segment starts (see logwriter). A tail read (`JobManager.logs`) ends at a position, a
follower continues from one, and an unread cursor is one saved between calls.
"""

from __future__ import annotations

import re

from jobs_tui.engine.records.results import JobError, ReadSince
from jobs_tui.engine.records.sanitize import sanitize_log

from .segments import LogMissing, LogRefused, SinceRead, read_since

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
        """The live segment's file: what a watcher (`logs.watch.LogWatch`) watches for writes."""
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


def read_sanitized(
    job_id: str, live: str, previous: str, offset: int, cap: int, running: bool
) -> ReadSince:
    """Sanitized output from absolute byte `offset`, at most `cap` bytes of it (blocking;
    `LogReader.since` runs it off the event loop, the command line's exec without one).

    An incomplete UTF-8 sequence or escape at the end is left for the next read while
    more may come (the job runs, or the cap cut it); once the job has ended, its last
    bytes are returned as they are.
    """
    while True:
        follower = LogFollower(job_id, live, previous, max(0, offset))
        got = follower.read(cap)
        data = got.data
        capped = got.offset + len(data) < got.end
        keep = len(data)
        if running or capped:  # the rest of a cut sequence comes with the next read
            keep = complete_sequences(data)
        if keep or not capped or cap >= HOLD_LIMIT:
            break
        cap = min(HOLD_LIMIT, cap * 2 + 256)  # the cap fell inside one sequence: read more
    return ReadSince(
        text=sanitize_log(data[:keep].decode("utf-8", "replace")),
        offset=got.offset + keep,
        skipped=got.skipped,
        end=got.end,
    )


HOLD_LIMIT = 1 << 20  # a read widens at most this far to finish a cut sequence
_WHOLE_ESCAPE = re.compile(
    rb"\x1b(?:\[[0-?]*[ -/]*[@-~]"  # CSI
    rb"|\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
    rb"|[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC
    rb"|[ -/]*[0-OQ-WYZ\\`a-~])"  # two-character sequences
)


def complete_sequences(data: bytes) -> int:
    """Length of `data` without a trailing UTF-8 character or escape not finished yet."""
    return _complete_escape(data[: _complete_utf8(data)])


def _complete_escape(data: bytes) -> int:
    """Length of `data` without a trailing escape sequence that is not finished yet.

    Sanitizing a sequence cut in two would let its second half through as text.
    """
    start = data.rfind(b"\x1b", max(0, len(data) - 256))
    if start < 0 or _WHOLE_ESCAPE.match(data, start):
        return len(data)
    return start


def _complete_utf8(data: bytes) -> int:
    """Length of `data` without a trailing incomplete UTF-8 sequence."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return len(data)
        if byte >= 0xC0:  # a lead byte: is its sequence complete?
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(data) if back >= need else len(data) - back
    return len(data)
