"""Where to start emulating a terminal job's log, and how to feed it: at the sizes its
terminal had, in pieces cut where the reader needs them.

A log read as text is its last bytes, cut anywhere, so the emulation must start where a
terminal would have shown the same thing:

- after a line end (a line-printing job: a build, a REPL);
- inside an alternate-screen session (vim, less), on the alternate screen, and of an
  alternate screen showing at the end, only what follows its last full clear;
- a program drawing on the main screen by moving the cursor (`top`, `htop`, a curses
  program without the alternate screen, a multi-line progress display) from a full-screen
  redraw point (a clear, a reset): from the middle, the first frame's rows land where the
  cursor happened to be, and a curses program, which rewrites only what changed, would
  lack every row that did not change since. Such a point is looked for back to SCAN_BYTES
  before the end when the last TEXT_BYTES hold none.

Sizes: `(offset, cols, rows)` records (absolute offsets, as the shim writes them into
`<id>.log.size`); the screen is resized where the job's terminal was, so each stretch of
output is laid out at the width and height it was written for.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

TEXT_BYTES = 256 * 1024  # the log's last bytes a text rendering emulates (~120 ms of lines)
SCAN_BYTES = 1024 * 1024  # how far back a main-screen program's last full redraw is looked for
ALT_ON = (b"\x1b[?1049h", b"\x1b[?1047h", b"\x1b[?47h")
ALT_OFF = (b"\x1b[?1049l", b"\x1b[?1047l", b"\x1b[?47l")
LINE_SEEK = 4096  # how far past a cut a line start is looked for
# Points after which the screen does not depend on what came before (as the terminal
# pane's replay has them): a full-screen clear (with the cursor homed when the program
# homes it), a reset.
REDRAW = re.compile(rb"\x1b\[(?:1;1)?H\x1b\[[02]?J|\x1b\[2J|\x1bc")
# Moving the cursor to a row, up or down, setting scroll margins: a program that draws
# its screen, whose output from the middle is not what its terminal showed.
ADDRESSING = re.compile(rb"\x1b\[[0-9;]*[HfABdr]|\x1bM|\x1b[78]")

Size = tuple[int, int, int]  # from absolute offset on: cols, rows


@dataclass(frozen=True)
class Plan:
    """What to feed: `prefix` (modes the skipped bytes had set), then `parts`, ranges of
    the data in order."""

    prefix: bytes
    parts: tuple[tuple[int, int], ...]

    @property
    def start(self) -> int:
        return self.parts[0][0] if self.parts else 0


def _first(data: bytes, needles: tuple[bytes, ...], lo: int, hi: int | None = None) -> int:
    end = len(data) if hi is None else hi
    found = [at for at in (data.find(n, lo, end) for n in needles) if at >= 0]
    return min(found) if found else -1


def _last(data: bytes, needles: tuple[bytes, ...], lo: int) -> tuple[int, bytes]:
    return max(((data.rfind(n, lo), n) for n in needles), key=lambda found: found[0])


def _main_start(data: bytes, start: int) -> int:
    """Where the main screen's emulation starts (see module doc): `start`, or a full
    redraw point when what precedes it is a program drawing its screen."""
    switch = _first(data, ALT_ON + ALT_OFF, start)
    hi = switch if switch >= 0 else len(data)
    redraw = REDRAW.search(data, start, hi)
    if redraw is not None:
        return redraw.start() if ADDRESSING.search(data, start, redraw.start()) else start
    if not ADDRESSING.search(data, start, hi):
        return start
    back = None
    for found in REDRAW.finditer(data, max(0, start - SCAN_BYTES), start):
        back = found.start()
    if back is None or _first(data, ALT_ON + ALT_OFF, back, start) >= 0:
        return start
    return back


def _parts(data: bytes, start: int) -> tuple[tuple[int, int], ...]:
    """The ranges of `data[start:]` to feed: all of it, but for an alternate screen that
    is showing at the end, only from its last full clear on (what it drew before that is
    gone, and it never scrolls into the scrollback): a vim session's redraws are not
    emulated one by one."""
    on, needle = _last(data, ALT_ON, start)
    off, _ = _last(data, ALT_OFF, start)
    if on < 0 or on < off:
        return ((start, len(data)),)
    entry = on + len(needle)
    clear = data.rfind(b"\x1b[2J", entry)
    if clear < 0:
        return ((start, len(data)),)
    for home in (b"\x1b[H", b"\x1b[1;1H"):
        if data.endswith(home, entry, clear):
            clear -= len(home)
            break
    return ((start, entry), (clear, len(data)))


def start_of(data: bytes, whole: bool, lo: int = 0) -> tuple[bytes, int]:
    """Where to feed `data` from (at or after `lo`), and the bytes that set up what the
    skipped part had set: a cut (`whole` False) starts after a line end, or at a main
    screen's redraw point (see module doc); a cut inside an alternate-screen session
    (its first switch after the cut leaves it) enters the alternate screen first."""
    if whole and lo == 0:
        return b"", 0
    nl = data.find(b"\n", lo, lo + LINE_SEEK)
    start = nl + 1 if nl >= 0 else lo
    off, on = _first(data, ALT_OFF, start), _first(data, ALT_ON, start)
    if off >= 0 and (on < 0 or off < on):
        return ALT_ON[0], start
    return b"", _main_start(data, start)


def plan(data: bytes, whole: bool, window: int = TEXT_BYTES) -> Plan:
    """How to emulate `data` (a terminal job's log from its start when `whole`, else its
    last bytes, cut anywhere): its last `window` bytes at most (0: all of it) from a
    sane start, with an alternate screen's redraws before its last clear skipped."""
    cut = max(0, len(data) - window) if window else 0
    prefix, start = start_of(data, whole, cut)
    return Plan(prefix, _parts(data, start))


def size_at(sizes: Sequence[Size], offset: int, default: tuple[int, int]) -> tuple[int, int]:
    """(cols, rows) of the screen the byte at absolute `offset` was written to."""
    i = bisect_right(sizes, (offset, 1 << 31, 1 << 31)) - 1
    return (sizes[i][1], sizes[i][2]) if i >= 0 else default


def time_at(times: Sequence[tuple[int, int]], offset: int) -> int | None:
    """Wall ms at which the byte at absolute `offset` was written, from time-index
    records (absolute offset, ms) in order; None: not indexed."""
    i = bisect_right(times, (offset, 1 << 64)) - 1
    return times[i][1] if i >= 0 else None


def pieces(
    parts: Sequence[tuple[int, int]], first: int, cuts: Sequence[int], limit: int
) -> Iterator[tuple[int, int]]:
    """The `parts` (ranges of data whose byte 0 is at absolute `first`) cut at each
    absolute offset in `cuts` (sorted) and every `limit` bytes at most."""
    for lo, hi in parts:
        i = bisect_right(cuts, first + lo)
        at = lo
        while at < hi:
            end = min(hi, at + limit)
            if i < len(cuts) and cuts[i] - first < end:
                end = cuts[i] - first
                i += 1
            if end > at:
                yield at, end
            at = max(at, end)
