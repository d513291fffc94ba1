"""`Follower`: new complete lines of a growing log, sanitized, in bounded batches.

It wraps the engine's `LogCursor` (which follows rotations) with the two things a
screen needs: line assembly (`LineAssembler`: a partial last line is held until its
newline, but can still be shown, as a REPL prompt has none) and a bound on work per
poll. A writer faster than the screen makes the follower skip ahead to the live end
instead of falling further behind; the skipped bytes are counted, never shown.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from jobs_tui.engine.follow import LogCursor

from .log_lines import LineAssembler

READ_CAP = 128 * 1024  # bytes one poll reads at most
KEEP_WHEN_BEHIND = 16 * 1024  # bytes of a full read that are shown when the writer is ahead


@dataclass
class Batch:
    lines: list[str] = field(default_factory=list)  # sanitized, SGR kept
    partial: str = ""  # the unfinished last line, sanitized
    skipped: int = 0  # bytes passed over unseen


def live_state(path: str) -> tuple[int, int, int] | None:
    """(device, inode, size) of the live segment, or None when it does not exist."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino, st.st_size)


class Follower:
    """Call `poll()` on a timer; it never blocks on a slow reader and never reads unbounded.

    `reread` is how many bytes before `start` belong to an unfinished line the caller
    already shows: the follower starts there, so what follows joins that line.
    """

    def __init__(
        self, live: str, start: int | None = None, inode: int | None = None, *, reread: int = 0
    ) -> None:
        self.live = live
        self._cursor = LogCursor(live, start, inode)
        self.assembler = LineAssembler()
        self._first_cap = READ_CAP + max(0, reread)

    def poll(self) -> Batch:
        cap, self._first_cap = self._first_cap or READ_CAP, 0
        chunk = self._cursor.read(cap)
        data, skipped = chunk.data, chunk.skipped
        if len(data) >= cap:  # the writer is ahead of us: jump near the end
            skipped += len(data) - KEEP_WHEN_BEHIND
            data = data[-KEEP_WHEN_BEHIND:]
            passed = self._cursor.skip_near_end(KEEP_WHEN_BEHIND)
            if passed:
                skipped += passed
                data = (data + self._cursor.read(KEEP_WHEN_BEHIND).data)[-KEEP_WHEN_BEHIND:]
            self.assembler.reset()
            cut = data.find(b"\n")  # the first line is a fragment: drop it
            data = data[cut + 1 :] if cut >= 0 else b""
        lines = self.assembler.feed(data)
        return Batch(lines, self.assembler.partial, skipped)

    def close(self) -> None:
        self._cursor.close()
