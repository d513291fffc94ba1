"""One rotating log per job: the writer the shim runs, and bounded readers for everyone else.

The writer never parses what it writes. `<id>.log.1` followed by `<id>.log` is always
a contiguous suffix of the job's output; readers open the pair so that a rotation
in the middle of a read is detected and retried, never shown as a gap.
"""

from __future__ import annotations

import errno
import os
import time
from dataclasses import dataclass

from jobs_tui.engine.registry import regfiles
from jobs_tui.engine.registry.safefiles import UnsafeFile, open_regular
from jobs_tui.engine.shim.logwriter import LogWriter
from jobs_tui.engine.shim.protocol import base_of

MiB = 1024 * 1024
LINE_CAP = MiB  # one log line is never loaded whole past this
READ_BUDGET = 16 * MiB  # bytes one read may load at most
_BLOCK = 64 * 1024
_MISSING_WAIT = 0.05  # seconds a missing live segment is waited for


__all__ = ["LogMissing", "LogRefused", "LogWriter", "open_pair", "read_page", "read_tail"]


class LogMissing(FileNotFoundError):
    """The job's log no longer exists (deleted by hand, or never written)."""


class LogRefused(LogMissing):
    """A log segment that is not a regular file of ours (a FIFO, a symlink, another
    user's file): treated as unreadable, never opened for reading."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(errno.EPERM, f"{os.path.basename(path)}: {reason}", path)
        self.reason = reason


@dataclass
class _Segment:
    fd: int
    size: int


class SegmentPair:
    """The previous and live segments opened together, addressed as one byte range."""

    def __init__(self, previous: _Segment | None, live: _Segment | None) -> None:
        self.previous = previous
        self.live = live
        self.previous_size = previous.size if previous else 0
        self.size = self.previous_size + (live.size if live else 0)

    def read(self, start: int, end: int) -> bytes:
        parts: list[bytes] = []
        if self.previous and start < self.previous_size:
            stop = min(end, self.previous_size)
            parts.append(os.pread(self.previous.fd, stop - start, start))
        if self.live and end > self.previous_size:
            begin = max(start, self.previous_size)
            parts.append(os.pread(self.live.fd, end - begin, begin - self.previous_size))
        return b"".join(parts)

    def close(self) -> None:
        for segment in (self.previous, self.live):
            if segment:
                os.close(segment.fd)


def _open_segment(path: str) -> _Segment | None:
    """The segment opened safely (O_NOFOLLOW | O_NONBLOCK, a regular file of ours)."""
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return None
    except UnsafeFile as exc:
        raise LogRefused(path, exc.strerror or "refused") from exc
    return _Segment(fd, os.fstat(fd).st_size)


def _inode(path: str) -> tuple[int, int] | None:
    try:
        st = regfiles.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino)


def open_pair(live: str, previous: str, attempts: int = 200) -> SegmentPair:
    """Open `<id>.log.1` + `<id>.log` as a consistent pair, retrying across rotations.

    The live segment is opened first; if it is still the live one after the previous
    segment has been opened, no rotation came between the two opens. A live segment
    that is missing while the previous one exists is a rotation between its rename and
    its reopen (microseconds), or a live log deleted by hand: after a short wait the
    previous segment alone is returned, which is then the whole retained log.
    """
    missing_since: float | None = None
    for attempt in range(attempts):
        live_seg = _open_segment(live)
        try:
            prev_seg = _open_segment(previous)
        except LogRefused:
            if live_seg:
                os.close(live_seg.fd)
            raise
        if live_seg is None:
            if prev_seg is None:
                raise LogMissing(errno.ENOENT, "log file does not exist", live)
            os.close(prev_seg.fd)
            now = time.monotonic()
            if missing_since is None:
                missing_since = now
            elif now - missing_since >= _MISSING_WAIT:
                break
            time.sleep(min(0.0005 * (attempt + 1), 0.01))
            continue
        st = os.fstat(live_seg.fd)
        if _inode(live) == (st.st_dev, st.st_ino):
            live_seg.size = os.fstat(live_seg.fd).st_size
            return SegmentPair(prev_seg, live_seg)
        os.close(live_seg.fd)
        if prev_seg:
            os.close(prev_seg.fd)
    if prev_seg_only := _open_segment(previous):
        return SegmentPair(prev_seg_only, None)
    raise LogMissing(errno.ENOENT, "log file does not exist", live)


@dataclass
class TailRead:
    """A bounded slice of a log: raw bytes plus what was left out before it."""

    data: bytes
    start: int  # offset of `data` within the retained segments
    size: int  # bytes in the retained segments
    earlier_lines: int | None  # lines before `data`, when counting them was cheap
    clipped: bool  # a line longer than line_cap was cut to its last line_cap bytes
    rotated: bool  # an earlier segment existed (output before .log.1 is gone)
    position: int = 0  # absolute offset of the job's output where `data` ends (a follower's start)

    @property
    def truncated(self) -> bool:
        return self.start > 0 or self.clipped

    @property
    def earlier_bytes(self) -> int:
        return self.start

    def text(self) -> str:
        return self.data.decode("utf-8", "replace")

    def lines(self) -> list[str]:
        text = self.text()
        if not text:
            return []
        if text.endswith("\n"):
            text = text[:-1]
        return text.split("\n")


def read_tail(
    live: str,
    previous: str,
    lines: int,
    *,
    line_cap: int = LINE_CAP,
    budget: int = READ_BUDGET,
    count_below: int = MiB,
) -> TailRead:
    """The last `lines` lines across both segments, reading backwards in blocks."""
    pair, first = _open_addressed(live, previous)
    try:
        tail = _tail_of(pair, max(1, lines), line_cap, budget, count_below)
        tail.position = first + pair.size
        return tail
    finally:
        pair.close()


def _tail_of(
    pair: SegmentPair, lines: int, line_cap: int, budget: int, count_below: int
) -> TailRead:
    """Scan backwards for line starts; every line is measured, none is loaded past the cap.

    Lines are taken from the end while fewer than `lines` are taken and the slice stays
    within `budget` bytes. A line longer than `line_cap` is cut to its last `line_cap`
    bytes (`clipped`) and ends the scan: the result is one contiguous slice.
    """
    line_cap = max(1, line_cap)
    budget = max(budget, line_cap + 1)  # the last line, clipped, always fits
    end = pair.size
    rotated = pair.previous is not None
    if end == 0:
        return TailRead(b"", 0, 0, 0, False, rotated)
    last = pair.read(end - 1, end)
    line_end = end - 1 if last == b"\n" else end  # end of the line being scanned, sans newline
    start = end  # start of the earliest line taken so far
    found = 0
    clipped = False
    pos = line_end

    def take(line_start: int) -> bool:
        """Measure the line [line_start, line_end); True when the scan must stop."""
        nonlocal start, found, clipped
        if line_end - line_start > line_cap:
            cut = line_end - line_cap
            if end - cut <= budget:
                start, clipped = cut, True
            return True
        if end - line_start > budget:
            return True
        start = line_start
        found += 1
        return found >= lines

    while True:
        block_start = max(0, pos - _BLOCK)
        block = pair.read(block_start, pos)
        cut = len(block)
        while True:
            nl = block.rfind(b"\n", 0, cut)
            if nl < 0:
                break
            if take(block_start + nl + 1):
                return _tail_result(pair, start, end, clipped, rotated, count_below)
            line_end = block_start + nl
            cut = nl
        if block_start == 0:  # the first retained line starts at offset 0
            take(0)
            break
        # the current line starts before this block
        if line_end - block_start > line_cap:
            take(block_start)  # longer than the cap: its last line_cap bytes, then stop
            break
        if end - block_start > budget:
            break  # it cannot fit, and neither its clipped tail (line_cap < budget)
        pos = block_start
    return _tail_result(pair, start, end, clipped, rotated, count_below)


def _tail_result(
    pair: SegmentPair, start: int, end: int, clipped: bool, rotated: bool, count_below: int
) -> TailRead:
    data = pair.read(start, end)
    earlier: int | None = None
    if start == 0:
        earlier = 0
    elif start <= count_below:
        earlier = pair.read(0, start).count(b"\n")
    return TailRead(data, start, end, earlier, clipped, rotated)


@dataclass
class PageRead:
    """Lines `offset`..`offset+len(lines)` of the retained log, and how many there are."""

    lines: list[str]
    offset: int
    total_lines: int
    clipped: bool
    rotated: bool


def read_page(
    live: str,
    previous: str,
    offset: int,
    limit: int | None,
    *,
    line_cap: int = LINE_CAP,
    budget: int = READ_BUDGET,
) -> PageRead:
    """Line-based offset/limit paging from the start of the retained log.

    Lines are counted from 0 at the start of the retained segments; every line is
    counted (`total_lines`), those in the page are returned, each cut to its last
    `line_cap` bytes (`clipped` says whether a returned line was cut). A page stops
    early once `budget` bytes are loaded.
    """
    offset = max(0, offset)
    pair = open_pair(live, previous)
    try:
        out: list[bytes] = []
        clipped = False
        loaded = 0
        index = 0
        carry = b""
        carry_long = False  # the line in `carry` was already cut to its last line_cap bytes
        pos = 0

        def keep(piece: bytes, long: bool) -> None:
            nonlocal clipped, loaded
            if index >= offset and (limit is None or len(out) < limit) and loaded < budget:
                if len(piece) > line_cap:
                    piece, long = piece[-line_cap:], True
                out.append(piece)
                loaded += len(piece)
                clipped = clipped or long

        while pos < pair.size:
            block = pair.read(pos, min(pair.size, pos + _BLOCK))
            pos += len(block)
            pieces = block.split(b"\n")
            pieces[0] = carry + pieces[0]
            first_long = carry_long
            carry = pieces.pop()
            carry_long = first_long if not pieces else False
            if len(carry) > line_cap:
                carry, carry_long = carry[-line_cap:], True
            for number, piece in enumerate(pieces):
                keep(piece, first_long and number == 0)
                index += 1
        if carry:
            keep(carry, carry_long)
            index += 1
        text = [piece.decode("utf-8", "replace") for piece in out]
        return PageRead(text, offset, index, clipped, pair.previous is not None)
    finally:
        pair.close()


@dataclass
class SinceRead:
    """Bytes from an absolute offset of the job's whole output (not of one segment)."""

    data: bytes
    offset: int  # absolute offset of data[0]
    skipped: int  # bytes between the asked offset and the oldest retained byte
    end: int  # absolute end of what the log holds now


def _read_base(path: str) -> tuple[int, int] | None:
    try:
        fd = open_regular(path)
    except OSError:
        return None
    try:
        inode, start = os.pread(fd, 64, 0).split()
        return int(inode), int(start)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def _open_addressed(live: str, previous: str) -> tuple[SegmentPair, int]:
    """The pair opened, and the absolute offset of its first byte (see logwriter's base file)."""
    for attempt in range(100):
        pair = open_pair(live, previous)
        base = _read_base(base_of(live))
        if pair.live is not None and base is not None:
            if base[0] != os.fstat(pair.live.fd).st_ino:
                pair.close()
                time.sleep(0.0005 * (attempt + 1))  # a rotation between open and base
                continue
            live_start = base[1]
        else:  # a log without a base file (another tool's): offsets within the pair
            live_start = pair.previous_size
        return pair, live_start - pair.previous_size
    raise LogMissing(errno.EAGAIN, "log kept rotating while it was read", live)


def read_since(live: str, previous: str, offset: int, cap: int) -> SinceRead:
    """Up to `cap` bytes from absolute `offset`, across rotations."""
    pair, first = _open_addressed(live, previous)
    try:
        end = first + pair.size
        start = min(max(offset, first), end)
        stop = min(end, start + max(0, cap))
        data = pair.read(start - first, stop - first)
        return SinceRead(data, start, max(0, first - offset), end)
    finally:
        pair.close()
