"""`WholeLines`: a log followed for a reader that prints it: whole lines, every gap said.

A `LogFollower` hands out raw bytes and counts those that rotated away before it read
them (`skipped`). A reader that prints what it reads (`logs --follow`, text or JSON)
needs two more things, or a gap forges a line that was never written (the end of one
line glued to the start of another):

- after a gap, the rest of the line it cut is dropped up to the next newline, and
  counted with the gap (its start is gone);
- while the job runs, an unfinished last line is held back (its end could rotate away
  before the next read) for `rest_s`: a fast writer's line ends long before that, and
  a line still unfinished by then (a prompt, a `\r` progress bar) is shown as it is.
  Only a writer that leaves a line unfinished that long and then outruns the reader
  can cut a line already shown; and a single line longer than WIDEN_LIMIT goes out
  in pieces.

So each line delivered was written whole, and delivered + skipped = written, byte for
byte: the position only ever moves by what was delivered or counted as skipped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from jobs_tui.engine.records.sanitize import sanitize_log

from .follower import READ_CAP, LogFollower, complete_sequences

REST_S = 0.15  # an unfinished last line is shown once it has waited this long for its end
WIDEN_LIMIT = 16 * 1024 * 1024  # a read widens this far to end on a newline; longer lines
# go out in pieces (the one case where a later gap can cut a delivered line)


@dataclass
class Delivery:
    """One read's worth: sanitized text, and the bytes before it that were lost."""

    text: str  # sanitized, whole lines (and, at rest or at the job's end, the unfinished one)
    raw: int  # bytes of the log that `text` was made of
    skipped: int  # bytes before them that rotated away unread, the cut line's rest included
    offset: int  # absolute position where the next read starts
    end: int  # absolute end of the log when read
    more: bool  # the log held more than this read took (read again at once)


class WholeLines:
    """Wraps a follower; `read` never blocks for long and never returns a spliced line."""

    def __init__(
        self, follower: LogFollower, *, keep_sgr: bool = False, rest_s: float = REST_S
    ) -> None:
        self.log = follower
        self.keep_sgr = keep_sgr
        self.rest_s = rest_s
        self._resync = False  # a gap cut a line: drop up to the next newline
        self._held_from: int | None = None  # where the unfinished line held back starts
        self._held_since = 0.0  # time.monotonic() when it was first held

    @property
    def position(self) -> int:
        return self.log.position

    def read(self, running: bool, cap: int = READ_CAP) -> Delivery:
        """Up to `cap` bytes on from the position; `running`: more output may come.

        Raises JobError (the log is gone or refused), as `LogFollower.read` does.
        """
        start = self.log.position
        while True:
            got = self.log.read(cap)
            data = got.data
            resync = self._resync or got.skipped > 0
            newline = data.find(b"\n") if resync else -1
            drop = (len(data) if newline < 0 else newline + 1) if resync else 0
            body = data[drop:]
            more = got.offset + len(data) < got.end
            if not (running and more and body and cap < WIDEN_LIMIT and b"\n" not in body):
                break
            # a line longer than `cap`: widen the read rather than hand out a piece of it
            # that a later gap could cut
            self.log.position = start
            cap = min(WIDEN_LIMIT, cap * 4 + 256)
        self._resync = resync and newline < 0 and running
        skipped = got.skipped + drop
        keep = len(body) if not running else self._keep(body, more, got.offset + drop)
        self.log.position = got.offset + drop + keep
        text = sanitize_log(body[:keep].decode("utf-8", "replace"), keep_sgr=self.keep_sgr)
        return Delivery(text, keep, skipped, self.log.position, got.end, more)

    def _keep(self, body: bytes, more: bool, at: int) -> int:
        """How much of `body` (whose first byte is at absolute `at`) a running job's reader
        takes now (see the module docstring)."""
        cut = body.rfind(b"\n") + 1
        if cut == len(body):
            self._held_from = None
            return cut
        if cut == 0 and more:  # one line longer than a read: in pieces, never held forever
            return complete_sequences(body) or len(body)
        now = time.monotonic()
        if self._held_from != at + cut:  # a new unfinished line: hold it, from now
            self._held_from, self._held_since = at + cut, now
        elif cut == 0 and now - self._held_since >= self.rest_s:  # held long enough
            self._held_from = None
            return complete_sequences(body)
        return cut
