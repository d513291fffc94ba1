"""`Follower`: new complete lines of a growing log, sanitized, in bounded batches.

It wraps the source's log follower (`JobSource.follow`: one absolute byte position,
which survives rotations) with the two things a screen needs: line assembly
(`LineAssembler`: a partial last line is held until its newline, but can still be
shown, as a REPL prompt has none) and a bound on work per poll. A writer faster than
the screen makes the follower skip ahead to the live end instead of falling further
behind; the skipped bytes are counted, never shown. After any gap (skipped ahead, or
rotated away before it was read) the rest of the line it cut is dropped and counted
too, so no row is ever two lines spliced together, and the pane's note
(`skipped N to keep up`) says exactly what was not shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jobs_tui.engine import JobError
from jobs_tui.screens.widgets.source import LogFollow

from .lines import LineAssembler

READ_CAP = 128 * 1024  # bytes one poll reads at most
KEEP_WHEN_BEHIND = 16 * 1024  # bytes of a full read that are shown when the writer is ahead


@dataclass
class Batch:
    lines: list[str] = field(default_factory=list)  # sanitized, SGR kept
    partial: str = ""  # the unfinished last line, sanitized
    skipped: int = 0  # bytes passed over unseen
    starts: list[int] = field(default_factory=list)  # absolute offset where each line starts
    next_start: int | None = None  # where the unfinished line (or the next one) starts


class Follower:
    """Call `poll()` on a timer; it never blocks on a slow reader and never reads unbounded.

    `reread` is how many bytes before the log's position belong to an unfinished line
    the caller already shows: the log is followed from there, so what follows joins it.
    """

    def __init__(self, log: LogFollow, reread: int = 0) -> None:
        self.log = log
        self.assembler = LineAssembler()
        self._first_cap = READ_CAP + max(0, reread)
        self._resync = False  # after a gap: drop up to the next newline (a line's cut rest)

    def poll(self) -> Batch:
        cap, self._first_cap = self._first_cap or READ_CAP, 0
        try:
            got = self.log.read(cap)
        except JobError:  # deleted or refused since the open (which said so): nothing new
            return Batch([], self.assembler.partial, 0, [], self.assembler.next_start)
        data, skipped = got.data, got.skipped
        if len(data) >= cap:  # the writer is ahead of us: jump near the end
            data, passed = self._catch_up(data, got.end)
            skipped += passed
            self._resync = True
        elif skipped:  # what we had not read yet rotated away: the line it cut is gone too
            self._resync = True
        if self._resync:  # the first line is a fragment: drop it, and count it
            self.assembler.reset()
            cut = data.find(b"\n")
            self._resync = cut < 0
            skipped += len(data) if cut < 0 else cut + 1
            data = data[cut + 1 :] if cut >= 0 else b""
        # every path leaves `data` a suffix of what was read, which ends at the position
        lines = self.assembler.feed(data, self.log.position - len(data))
        assembler = self.assembler
        if assembler.next_start is None:
            assembler.next_start = self.log.position
        return Batch(lines, assembler.partial, skipped, assembler.starts, assembler.next_start)

    def _catch_up(self, data: bytes, end: int) -> tuple[bytes, int]:
        """The last KEEP_WHEN_BEHIND bytes up to the end, and how many were passed over."""
        passed = 0
        if end - self.log.position >= KEEP_WHEN_BEHIND:  # what was read is all passed over
            passed, data = len(data), b""
            passed += self.log.skip_to(end - KEEP_WHEN_BEHIND)
        try:
            more = self.log.read(KEEP_WHEN_BEHIND)
        except JobError:
            more = None
        if more is not None:
            passed += more.skipped
            data = more.data if more.skipped else data + more.data
        if len(data) > KEEP_WHEN_BEHIND:
            passed += len(data) - KEEP_WHEN_BEHIND
            data = data[-KEEP_WHEN_BEHIND:]
        return data, passed
