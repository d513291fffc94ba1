"""Opening a PTY job's terminal: a bounded replay of its log, then live output.

A job's log can hold hundreds of MiB; its screen now depends only on the bytes since
the last point that redrew it whole. `plan_replay` looks for that point within the last
SCAN_BYTES (the last full-screen clear, reset or switch to the alternate screen) and
replays from it when it lies within REPLAY_CAP bytes of the end; otherwise the last
FALLBACK_BYTES are replayed from a line start (a line-oriented job: its last lines fill
the screen and part of the scrollback). What the skipped bytes had switched on (the
alternate screen, application cursor keys, bracketed paste, a hidden cursor, the
application keypad) is replayed first, found by the same scan.

`open_terminal` returns the model and a follower positioned exactly after the replayed
bytes: nothing is lost or fed twice. `LivePump` then feeds what comes next, woken by
inotify within milliseconds of each write (`engine.logs.watch`), or by a 10 ms poll where
inotify is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jobs_tui.engine import JobError
from jobs_tui.engine.logs.watch import LogWatch
from jobs_tui.term.model import TermModel

if TYPE_CHECKING:
    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.screens.widgets.source import JobSource, LogFollow

SCAN_BYTES = 1024 * 1024  # how far back the last redraw point is looked for
REPLAY_CAP = 128 * 1024  # a redraw point further back than this is not replayed from
FALLBACK_BYTES = 16 * 1024  # replayed without a redraw point near enough: fills a 40-row
# screen and some scrollback (32 KiB took 216 ms to open at load 7.7, over the 200 ms target)
READ_CHUNK = 32 * 1024  # bytes one read of the live pump takes at most (~10 ms to feed)
BEHIND_BYTES = 2 * 1024 * 1024  # a pump further behind than this catches up (see LivePump)
POLL_S = 0.01  # without inotify: how often the pump looks for output
SAFETY_S = 0.5  # with inotify: a look anyway (a rotation between two watches)

# Points after which the screen does not depend on what came before: a full-screen
# clear (with the cursor homed when the program homes it), a reset. Entering the
# alternate screen is one too, for the alternate screen (see plan_replay).
REDRAW = re.compile(rb"\x1b\[(?:1;1)?H\x1b\[[02]?J|\x1b\[2J|\x1bc")
ALT_ON = (b"\x1b[?1049h", b"\x1b[?1047h", b"\x1b[?47h")
ALT_OFF = (b"\x1b[?1049l", b"\x1b[?1047l", b"\x1b[?47l")
# Private modes a program sets and a replay from the middle must not lose.
KEPT_MODES = (1, 25, 2004)
DEFAULT_SIZE = (80, 24)  # a terminal job's screen when its record has no size (an old record)


@dataclass(frozen=True)
class ReplayPlan:
    """What to feed, in order: ranges of the log `(start, stop)` (absolute positions) and
    literal bytes (the modes skipped bytes had set)."""

    parts: tuple[tuple[int, int] | bytes, ...]
    redraw: bool  # True: the screen is replayed from a redraw point; False: the fallback

    @property
    def replayed(self) -> int:
        return sum(p[1] - p[0] for p in self.parts if isinstance(p, tuple))


def _last(data: bytes, needles: tuple[bytes, ...], lo: int, hi: int) -> int:
    return max(data.rfind(needle, lo, hi) for needle in needles)


def _modes(data: bytes, lo: int, hi: int) -> bytes:
    """The mode switches (not the alternate screen) made in `data[lo:hi]`, as bytes that
    make them again."""
    out = []
    for mode in KEPT_MODES if data.rfind(b"\x1b[?", lo, hi) >= 0 else ():
        on = data.rfind(b"\x1b[?%dh" % mode, lo, hi)
        off = data.rfind(b"\x1b[?%dl" % mode, lo, hi)
        if max(on, off) >= 0:
            out.append(b"\x1b[?%d%s" % (mode, b"h" if on > off else b"l"))
    if data.rfind(b"\x1b=", lo, hi) > data.rfind(b"\x1b>", lo, hi):
        out.append(b"\x1b=")
    return b"".join(out)


def _redraws(data: bytes, earliest: int, hi: int):  # type: ignore[no-untyped-def]
    """The redraw points in `data[earliest:hi]`, last first."""
    step = 64 * 1024
    while hi > earliest:  # backwards, one slice at a time: the last one is usually near
        lo = max(earliest, hi - step)
        found = [m.start() for m in REDRAW.finditer(data, lo, hi + 16) if m.start() < hi]
        for at in reversed(found):
            for home in (b"\x1b[H", b"\x1b[1;1H"):  # a slice may have cut the home off
                if data.endswith(home, 0, at) and data.startswith(b"\x1b[2J", at):
                    at -= len(home)
                    break
            yield at
        hi = lo
        step *= 2


def _floor(data: bytes, at: int) -> int:
    """The last reset before `at` (0 without one): nothing before it matters after it."""
    return max(0, data.rfind(b"\x1bc", 0, at))


def _alt_entry(data: bytes, at: int) -> int:
    """Where the alternate-screen session in force at `data[at]` began (-1: none)."""
    lo = _floor(data, at)
    if data.rfind(b"\x1b[?", lo, at) < 0:  # one scan, where most logs have no mode switch
        return -1
    off = _last(data, ALT_OFF, lo, at)
    if _last(data, ALT_ON, lo, at) <= off:
        return -1
    return min(x for x in (data.find(n, max(lo, off + 1), at) for n in ALT_ON) if x >= 0)


def _line_start(data: bytes, cut: int, hi: int) -> int:
    newline = data.find(b"\n", cut, min(hi, cut + 4096))
    return newline + 1 if newline >= 0 else cut


def _main_start(data: bytes, hi: int) -> tuple[int, bool]:
    """Where to replay from to rebuild the main screen as it is at `data[hi]` (in force,
    or set aside behind an alternate screen): the last redraw point made on the main
    screen within REPLAY_CAP, else FALLBACK_BYTES back from a line start outside any
    alternate-screen session."""
    earliest = max(0, hi - REPLAY_CAP)
    for at in _redraws(data, earliest, hi):
        if data.startswith(b"\x1bc", at) or _alt_entry(data, at) < 0:  # a reset leaves it
            return at, True
    cut = max(0, hi - FALLBACK_BYTES)
    if cut and _alt_entry(data, cut) >= 0:  # inside a session: from its end on
        ends = [x for x in (data.find(n, cut, hi) for n in ALT_OFF) if x >= 0]
        return (min(ends) if ends else hi), False
    return (_line_start(data, cut, hi) if cut else 0), False


def plan_replay(data: bytes, first: int) -> ReplayPlan:
    """How to rebuild the screen from the last bytes of the log (`data`, whose first
    byte is at absolute position `first`).

    On the main screen: from its last redraw point near the end, else the last
    FALLBACK_BYTES. On the alternate screen: the main screen behind it is rebuilt first,
    up to the switch (leaving the alternate screen later shows what it showed), then the
    alternate screen from its last clear, or from the switch itself when that is near."""
    end = len(data)
    entry = _alt_entry(data, end)
    parts: list[tuple[int, int] | bytes] = []
    if entry < 0:
        start, redraw = _main_start(data, end)
        parts += [_modes(data, _floor(data, start), start), (start, end)]
    else:
        main, _ = _main_start(data, entry)
        parts += [_modes(data, _floor(data, main), main), (main, entry)]
        alt = next(iter(_redraws(data, max(entry, end - REPLAY_CAP), end)), -1)
        redraw = alt >= 0 or end - entry <= REPLAY_CAP
        if alt < 0:
            alt = entry if redraw else _line_start(data, end - FALLBACK_BYTES, end)
        if alt > entry:
            size = next(len(n) for n in ALT_ON if data.startswith(n, entry))
            parts += [(entry, entry + size), _modes(data, entry, alt)]
        parts.append((alt, end))
    kept = tuple(
        (p[0] + first, p[1] + first) if isinstance(p, tuple) else p
        for p in parts
        if p and not (isinstance(p, tuple) and p[0] >= p[1])
    )
    return ReplayPlan(kept, redraw)


def fill(model: TermModel, follow: LogFollow, end: int) -> ReplayPlan:
    """Blocking: read `follow` from its position up to `end` (at most SCAN_BYTES are
    asked for) and feed `model` what rebuilds the screen as it is at `end`; `follow`
    is left at `end`, exactly after what was fed."""
    chunks = []
    first = -1
    while follow.position < end:
        got = follow.read(min(SCAN_BYTES, end - follow.position))
        if first < 0:
            first = got.offset
        if not got.data:
            break
        chunks.append(got.data)
    data = b"".join(chunks)
    first = max(0, first)
    plan = plan_replay(data, first)
    for part in plan.parts:
        model.feed(part if isinstance(part, bytes) else data[part[0] - first : part[1] - first])
    return plan


def replay(
    follow_at: Callable[[int], LogFollow], cols: int, rows: int, scrollback: int
) -> tuple[TermModel, LogFollow]:
    """Blocking: the model of the job's screen now, and its follower (see module doc)."""
    end = follow_at(1 << 62).position
    follow = follow_at(max(0, end - SCAN_BYTES))
    model = TermModel(cols, rows, scrollback)
    fill(model, follow, end)
    return model, follow


def term_size(record: JobRecord) -> tuple[int, int]:
    """(cols, rows) the job's terminal has now, as its record says (the last resize)."""
    if record.term_cols and record.term_rows:
        return record.term_cols, record.term_rows
    return DEFAULT_SIZE


async def open_terminal(
    source: JobSource, job_id: str, cols: int, rows: int, scrollback: int = 5000
) -> tuple[TermModel, LogFollow]:
    """Bounded replay: a model showing the job's screen now, and a follower positioned
    right after the replayed bytes (nothing between them is lost or repeated).

    Raises `JobError` when the job is unknown or its log cannot be read."""
    source.get(job_id)  # unknown id: JobError before any work

    def follow_at(position: int) -> LogFollow:
        return source.follow(job_id, position)

    return await asyncio.to_thread(replay, follow_at, cols, rows, scrollback)


class LivePump:
    """Reads a follower whenever its log is written and hands the bytes to `sink`.

    Woken by inotify on the live segment (within milliseconds of a write), with a look
    every SAFETY_S anyway; without inotify, every POLL_S. Reads take at most READ_CHUNK
    at a time, yielding to the loop between them, so a burst never freezes the UI.

    A job that writes faster than the emulator reads (more than BEHIND_BYTES ahead), or
    whose unread bytes rotated away, is caught up as a view is opened: `fresh()` makes
    an empty model, it is filled from the last redraw point (off the event loop) and
    handed to `restart`; the bytes passed over are counted in `skipped`.
    """

    def __init__(
        self,
        follow: LogFollow,
        sink: Callable[[bytes], None],
        fresh: Callable[[], TermModel] | None = None,
        restart: Callable[[TermModel], None] | None = None,
    ) -> None:
        self.follow = follow
        self.sink = sink
        self.fresh = fresh
        self.restart = restart
        self.skipped = 0
        self._stopped = asyncio.Event()
        self._wake = asyncio.Event()

    def stop(self) -> None:
        self._stopped.set()
        self._wake.set()

    async def _catch_up(self, end: int) -> None:
        assert self.fresh is not None and self.restart is not None
        model = self.fresh()
        start = self.follow.position
        self.follow.position = max(0, end - SCAN_BYTES)
        plan = await asyncio.to_thread(fill, model, self.follow, end)
        first = next((p[0] for p in plan.parts if isinstance(p, tuple)), end)
        self.skipped += max(0, first - start)
        if not self._stopped.is_set():
            self.restart(model)

    async def run(self) -> None:
        watch = LogWatch(self._wake.set)
        path = getattr(self.follow, "path", None)
        interval = SAFETY_S if (watch.active and path) else POLL_S
        can_catch_up = self.fresh is not None and self.restart is not None
        try:
            while not self._stopped.is_set():
                if path and watch.active:
                    with contextlib.suppress(OSError):
                        watch.add(path)  # again after a rotation: the new live file
                self._wake.clear()
                try:
                    got = self.follow.read(READ_CHUNK)
                except JobError:
                    got = None
                if got is not None and can_catch_up:
                    behind = got.end - self.follow.position
                    if got.skipped or behind > BEHIND_BYTES:
                        await self._catch_up(got.end)
                        continue
                if got is not None and got.data:
                    self.sink(got.data)
                    if len(got.data) >= READ_CHUNK:
                        await asyncio.sleep(0)
                        continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), interval)
        finally:
            watch.close()
