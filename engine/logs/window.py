"""Lines before and after an absolute byte offset of a job's retained log: a pager's pages.

A pager over a log that may be a GiB never reads it whole: it asks for the lines just
before the first one it holds (scrolling up) or just after the last (scrolling down),
or for the lines around a find's match. Offsets are absolute (`logwriter`'s base file),
so a page asked for after a rotation still lands on the same bytes, or says they are
gone. Each read is bounded twice, in lines and in bytes, a line longer than `line_cap`
comes as pieces of at most `line_cap` bytes, and every line is sanitized as the log
pane shows it (SGR colours kept, all else stripped) and dated from the time index.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jobs_tui.engine.records.sanitize import sanitize_log
from jobs_tui.engine.shim.timeindex import time_at

from .search import read_times
from .segments import LINE_CAP, MiB, SegmentPair, _open_addressed

PAGE_BYTES = 4 * MiB  # bytes one side of a page read loads at most
_BLOCK = 64 * 1024
COUNT_BELOW = MiB  # earlier lines are counted when fewer bytes than this lie before


@dataclass
class LinePage:
    """Complete lines of the retained log, contiguous, with where each starts and when."""

    lines: list[str] = field(default_factory=list)  # sanitized, SGR kept, no newline
    offsets: list[int] = field(default_factory=list)  # absolute offset of each line's first byte
    times: list[int | None] = field(default_factory=list)  # wall ms each was written, if indexed
    start: int = 0  # absolute offset of the first line (where the page begins)
    end: int = 0  # absolute offset just after the last line's newline (where the next begins)
    first: int = 0  # absolute offset of the oldest retained byte (what is before it rotated away)
    log_end: int = 0  # absolute end of the log when read (an unfinished line ends here)
    earlier_lines: int | None = None  # lines between `first` and `start`, when cheap to count
    clipped: bool = False  # a line longer than the cap came in pieces
    at_end: bool = False  # nothing but an unfinished line (or nothing) follows `end`

    @property
    def partial(self) -> int:
        """Bytes of an unfinished last line after `end`, when the page reached it (else 0)."""
        return self.log_end - self.end if self.at_end else 0

    @property
    def at_start(self) -> bool:
        return self.start <= self.first


def read_lines(
    live: str,
    previous: str,
    offset: int | None,
    *,
    before: int = 0,
    after: int = 0,
    max_bytes: int = PAGE_BYTES,
    line_cap: int = LINE_CAP,
) -> LinePage:
    """Up to `before` complete lines ending at `offset` and `after` starting there.

    `offset` None is the end of the log; an offset inside a line is moved to that line's
    start (looked for at most `line_cap` bytes back); one before the retained log is its
    first byte. Each side loads at most `max_bytes`. Raises `LogMissing`.
    """
    cap = max(1, line_cap)
    budget = max(max_bytes, cap)
    pair, first = _open_addressed(live, previous)
    try:
        size = pair.size
        pos = size if offset is None else min(max(offset - first, 0), size)
        pos = _line_start(pair, pos, cap)
        back, cut_back = _lines_before(pair, pos, max(0, before), budget, cap)
        ahead, end, cut_ahead = _lines_after(pair, pos, max(0, after), budget, cap)
        spans = back + ahead
        start = spans[0][0] if spans else pos
        earlier = pair.read(0, start).count(b"\n") if start <= COUNT_BELOW else None
        block = pair.read(start, spans[-1][1]) if spans else b""
        at_end = size - end <= cap and b"\n" not in pair.read(end, size)
    finally:
        pair.close()
    lines = _sanitized([block[a - start : b - start] for a, b in spans])
    offsets = [first + a for a, _ in spans]
    records = read_times(live) if offsets else []
    return LinePage(
        lines=lines,
        offsets=offsets,
        times=[time_at(records, at) for at in offsets],
        start=first + start,
        end=first + end,
        first=first,
        log_end=first + size,
        earlier_lines=earlier,
        clipped=cut_back or cut_ahead,
        at_end=at_end,
    )


def _line_start(pair: SegmentPair, pos: int, cap: int) -> int:
    """The start of the line holding byte `pos` (`pos` itself when a line starts there)."""
    floor = max(0, pos - cap)
    while pos > floor:
        start = max(floor, pos - _BLOCK)
        block = pair.read(start, pos)
        nl = block.rfind(b"\n")
        if nl >= 0:
            return start + nl + 1
        pos = start
    return pos


def _lines_before(
    pair: SegmentPair, pos: int, count: int, budget: int, cap: int
) -> tuple[list[tuple[int, int]], bool]:
    """(start, end) of up to `count` lines ending at `pos` (a line start), oldest first;
    `end` excludes the newline. A line longer than `cap` comes as pieces of its last `cap`
    bytes (the rest is the next page's). Reads backwards in blocks, each byte once."""
    spans: list[tuple[int, int]] = []
    clipped = False
    if count <= 0 or pos <= 0:
        return spans, clipped
    buf_start = max(0, pos - _BLOCK)
    buf = pair.read(buf_start, pos)  # bytes [buf_start, line_end]: the ones not taken yet
    line_end = pos - 1 if buf.endswith(b"\n") else pos
    while len(spans) < count:
        rel_end = line_end - buf_start
        nl = buf.rfind(b"\n", 0, rel_end)
        if nl >= 0 and line_end - (buf_start + nl + 1) <= cap:
            line_start = buf_start + nl + 1
        elif nl < 0 and buf_start > 0 and line_end - buf_start < cap:
            more = max(0, buf_start - _BLOCK, line_end - cap)
            buf = pair.read(more, buf_start) + buf[:rel_end]
            buf_start = more
            continue
        elif nl < 0 and buf_start == 0 and line_end <= cap:
            line_start = 0
        else:  # longer than the cap: its last `cap` bytes are a row of their own
            line_start, clipped = line_end - cap, True
        if pos - line_start > budget and spans:
            break
        spans.append((line_start, line_end))
        if line_start == 0:
            break
        at = line_start - 1 - buf_start
        newline = buf[at : at + 1] == b"\n" if at >= 0 else False
        line_end = line_start - 1 if newline else line_start
        buf = buf[: max(0, line_end - buf_start)]
    spans.reverse()
    return spans, clipped


def _lines_after(
    pair: SegmentPair, pos: int, count: int, budget: int, cap: int
) -> tuple[list[tuple[int, int]], int, bool]:
    """(start, end) of up to `count` complete lines from `pos`, and where the next starts.

    A line longer than `cap` comes as pieces of `cap` bytes. An unfinished last line of at
    most `cap` bytes is not a line yet (a follower shows it). Reads forwards in blocks."""
    spans: list[tuple[int, int]] = []
    clipped = False
    at = buf_at = pos
    buf = b""
    size = pair.size
    while len(spans) < count and at < size:
        rel = at - buf_at
        nl = buf.find(b"\n", rel)
        if nl < 0 and len(buf) - rel <= cap and buf_at + len(buf) < size:
            more = pair.read(buf_at + len(buf), min(size, buf_at + len(buf) + _BLOCK))
            buf, buf_at = buf[rel:] + more, at
            continue
        if nl < 0 and len(buf) - rel <= cap:
            break  # the unfinished last line
        if nl < 0 or nl - rel > cap:
            piece_end = next_at = at + cap
            clipped = True
        else:
            piece_end = buf_at + nl
            next_at = piece_end + 1
        if next_at - pos > budget and spans:
            break
        spans.append((at, piece_end))
        at = next_at
    return spans, at, clipped


def _sanitized(raw: list[bytes]) -> list[str]:
    """Each raw line as the pane shows it; sanitizing is line-local, so done in one go."""
    if not raw:
        return []
    lines = sanitize_log(b"\n".join(raw).decode("utf-8", "replace"), keep_sgr=True).split("\n")
    if len(lines) != len(raw):  # not expected; never let rows and offsets drift apart
        lines = [
            sanitize_log(piece.decode("utf-8", "replace"), keep_sgr=True).replace("\n", " ")
            for piece in raw
        ]
    return lines
