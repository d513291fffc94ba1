"""`LiveTail`: the selected job's last lines, live, at the bottom of its detail pane.

Shown when the screen is wide and tall enough (`fits`); the list decides, and follows
only the selected job, only while the list is shown. A job's bytes are read as they are
written (`LivePump`: inotify, else a short poll) and the rows are redrawn with the list's
own once-a-tick repaint (`flush`, in the same frame), so a job printing thousands of
lines a second costs no frame of its own.
A job without a terminal shows its last log lines, sanitized as the log pane shows
them (colours dropped); a terminal job the bottom non-empty rows of its emulated screen
(`TermModel`, the terminal view's emulator, after a bounded replay of its log).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from functools import partial
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from jobs_tui.engine import JobError
from jobs_tui.engine.records.sanitize import sanitize_log
from jobs_tui.screens.log.lines import LineAssembler
from jobs_tui.screens.log.text import plain_of
from jobs_tui.screens.terminal.replay import LivePump, open_terminal, term_size
from jobs_tui.screens.widgets.words import human_bytes

from .tail_pump import TailPump

if TYPE_CHECKING:
    from collections.abc import Callable

    from jobs_tui.engine.logs.segments.segments import SinceRead
    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.screens.widgets.source import JobSource, LogFollow
    from jobs_tui.term.model import TermModel

MIN_WIDTH = 120  # the screen's columns for a live tail beside the list
MIN_HEIGHT = 30  # and its rows
MIN_ROWS = 5  # the tail's own rows at least (with its rule), else it stays hidden
FIELD_ROWS = 10  # the detail's fields keep this many rows above the tail
MAX_LINES = 200  # lines a non-terminal job's tail keeps
TAIL_BYTES = 32 * 1024  # what is read of a log when its tail opens
WAITING = "no output yet"


def fits(width: int, height: int) -> bool:
    """Whether a screen of this size shows a live tail under the detail's fields."""
    return width >= MIN_WIDTH and height >= MIN_HEIGHT


def last_lines_start(data: bytes, count: int) -> int:
    """Where the last `count` lines of `data` start (and the one in progress after them)."""
    cut = len(data)
    for _ in range(count + 1):
        cut = data.rfind(b"\n", 0, cut)
        if cut < 0:
            return 0
    return cut + 1


def bottom_rows(lines: list[str]) -> list[str]:
    """A terminal screen's rows down to its last non-empty one (the rows below are blank)."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


class TailLines:
    """A job's last lines: complete ones, then the one being written; any split of bytes.

    After a gap (`gap`: output rotated away before it was read) the rest of the line it
    cut is dropped and counted, so no row is two lines spliced together."""

    def __init__(self, lines: list[str], keep: int = MAX_LINES) -> None:
        self.lines: deque[str] = deque((plain_of(line) for line in lines), maxlen=keep)
        self.assembler = LineAssembler()
        self.skipped = 0  # bytes never shown: rotated away, and the lines they cut
        self._resync = False

    def gap(self, skipped: int) -> None:
        self.assembler.reset()
        self.skipped += skipped
        self._resync = True

    def feed(self, data: bytes) -> None:
        if self._resync:
            cut = data.find(b"\n")
            self._resync = cut < 0
            self.skipped += len(data) if cut < 0 else cut + 1
            data = data[cut + 1 :] if cut >= 0 else b""
        keep = self.lines.maxlen or MAX_LINES
        start = last_lines_start(data, keep)
        if start:  # more lines than are kept: only the last ones are split and sanitized
            self.assembler.reset()
            data = data[start:]
        self.lines.extend(plain_of(line) for line in self.assembler.feed(data))

    def rows(self) -> list[str]:
        partial = plain_of(self.assembler.partial)
        return [*self.lines, partial] if partial else list(self.lines)


class TermRows:
    """A terminal job's emulated screen; its rows are the bottom non-empty ones."""

    def __init__(self, model: TermModel) -> None:
        self.model = model
        self.skipped = 0  # bytes rotated away before the emulator read them

    def gap(self, skipped: int) -> None:
        self.skipped += skipped

    def feed(self, data: bytes) -> None:
        self.model.feed(data)

    def rows(self) -> list[str]:
        return [sanitize_log(line) for line in bottom_rows(self.model.text_lines())]


class LiveTail(Widget):
    """The last lines of one job, followed while `follow` names it; never focused."""

    DEFAULT_CSS = """
    LiveTail {
        dock: bottom;
        height: 8;
        display: none;
        border-top: hkey $panel-lighten-2;
        border-title-align: left;
        border-title-color: $text-muted;
        color: $text-muted;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: clip;
    }
    LiveTail.-shown {
        display: block;
    }
    """

    _version = 0  # moves when what the rows show changed (see `refresh`)
    _drawn_at = 0.0  # time.monotonic() of the last redraw

    def __init__(self, source: JobSource, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source = source
        self.border_title = "live"
        self.job_id: str | None = None
        self.running = False
        self.feed: TailLines | TermRows | None = None
        self.note = ""  # said instead of lines (the log cannot be read)
        self.pending = False  # output taken that the rows do not show yet (see `flush`)
        self.redraws = 0  # how often the rows were redrawn (tests read it)
        self._rows: list[tuple[str, bool]] = []  # (text, italic) of each row drawn
        self._rows_for: tuple[int, int] | None = None  # (version, height) of `_rows`
        self._strips: dict[tuple[str, bool, int], Strip] = {}

    # -- which job -----------------------------------------------------------------------
    def follow(self, record: JobRecord | None) -> None:
        """Follow `record`'s output (None: nothing). A job already followed is left as it is,
        until it finishes (then its last bytes are read once more and the pump stops)."""
        job_id = record.id if record is not None else None
        running = record is not None and record.running
        if job_id == self.job_id and (running or not self.running):
            return
        self.stop()
        self.job_id, self.running = job_id, running
        self.feed, self.note = None, ""
        self.border_title = "live"
        self.refresh()
        if record is not None:
            size = term_size(record) if record.tty else None
            self.run_worker(  # a callable, not a coroutine: an exclusive worker may never start
                partial(self._follow, record.id, size, running),
                name="live tail",
                group="live-tail",
                exclusive=True,
                exit_on_error=False,
            )

    def stop(self) -> None:
        """Stop following (the list is hidden, or another job was selected)."""
        self.workers.cancel_group(self, "live-tail")
        self.job_id, self.running = None, False

    async def _follow(self, job_id: str, size: tuple[int, int] | None, running: bool) -> None:
        try:
            if size is not None:
                model, log = await open_terminal(self.source, job_id, *size, scrollback=0)
                feed: TailLines | TermRows = TermRows(model)
            else:
                feed, log = await asyncio.to_thread(self._open_lines, job_id)
        except (JobError, OSError) as exc:
            if self.job_id == job_id:
                self.note = str(exc)[:200]
                self.refresh()
            return
        if self.job_id != job_id:
            return
        self.feed = feed
        self.refresh()
        if not running:
            return
        pump: LivePump | TailPump
        if isinstance(feed, TailLines):  # lines: only the newest bytes are read
            pump = TailPump(log, self._took, self._skipped_by_pump)
        else:  # an emulated screen takes every byte, in order
            pump = LivePump(_Gaps(log, feed.gap), self._took)
        try:
            await pump.run()
        finally:
            pump.stop()

    def _open_lines(self, job_id: str) -> tuple[TailLines, LogFollow]:
        """The last TAIL_BYTES of the log as lines, and a follower right after them.

        Read through `follow`, not `logs`: a glance at a selected row is not a look at the
        job's result (`logs` counts as one: the result would no longer be unreported)."""
        end = self.source.follow(job_id).position
        log = self.source.follow(job_id, max(0, end - TAIL_BYTES))
        got = log.read(TAIL_BYTES)
        data = got.data
        if got.offset > 0 or got.skipped:  # the first line is a fragment: left out
            data = data[data.find(b"\n") + 1 :] if b"\n" in data else b""
        data = data[last_lines_start(data, MAX_LINES) :]  # only what is kept is sanitized
        feed = TailLines([])
        feed.feed(data)
        return feed, log

    def _skipped_by_pump(self, count: int) -> None:
        """Output the tail passed over to show the newest lines (the log keeps it)."""
        if self.feed is not None:
            self.feed.gap(count)

    def _took(self, data: bytes) -> None:
        if self.feed is None:
            return
        self.feed.feed(data)
        self.pending = True  # the title too: it is a reactive, and set per read it was a
        # frame per read (ten a second of a `yes`)

    def _retitle(self) -> None:
        """The log pane's note, in the tail's title, with the rows it counts."""
        if self.feed is not None and self.feed.skipped:
            title = f"live · skipped {human_bytes(self.feed.skipped)} to keep up"
            if title != self.border_title:
                self.border_title = title

    def flush(self, at_most_every: float = 0.0) -> None:
        """Redraw if output came since the last redraw. The list calls it with its own
        once-a-tick repaint, so both are one frame (a frame's cost is mostly fixed), and
        with `at_most_every` from its polls, for output that no tick shows in time."""
        if self.pending and time.monotonic() - self._drawn_at >= at_most_every:
            self._retitle()
            self.refresh()

    # -- drawing -------------------------------------------------------------------------
    # The Line API: a redraw takes the rows once, and each row's strip is kept by its text
    # (a scrolling tail shows the same texts one row higher), so a redraw of a busy job
    # costs little more than compositing.
    def render_line(self, y: int) -> Strip:
        width, height = self.content_size
        if self._rows_for != (self._version, height):
            self._rows_for = (self._version, height)
            self._take_rows()
        rows = self._rows
        if y >= len(rows) or width <= 0:
            return Strip.blank(width, self.rich_style)
        text, italic = rows[y]
        key = (text, italic, width)
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > 4 * MAX_LINES:
                self._strips.clear()
            style = self.rich_style + Style(italic=True) if italic else self.rich_style
            strip = Strip([Segment(text[: 2 * width], style)]).adjust_cell_length(width, style)
            self._strips[key] = strip
        return strip

    def _take_rows(self) -> None:
        """The rows to draw, once per redraw (row 0 is drawn first)."""
        self.redraws += 1
        height = self.content_size.height
        if self.note:
            self._rows = [(self.note, True)]
            return
        rows = self.feed.rows()[-height:] if self.feed is not None and height > 0 else []
        self._rows = [(row, False) for row in rows] if rows else [(WAITING, True)]

    def refresh(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        """Every change of what the tail shows comes through here: the rows are taken anew."""
        self._version += 1
        self.pending = False
        self._drawn_at = time.monotonic()
        return super().refresh(*args, **kwargs)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()


class _Gaps:
    """A follower as `LivePump` reads it, telling `on_gap` of bytes rotated away unread
    (the pump only counts them where it can re-open a terminal view; the tail drops the
    line they cut and says so)."""

    def __init__(self, log: LogFollow, on_gap: Callable[[int], None]) -> None:
        self.log = log
        self.on_gap = on_gap
        self.path = getattr(log, "path", None)

    @property
    def position(self) -> int:
        return self.log.position

    @position.setter
    def position(self, value: int) -> None:
        self.log.position = value

    def read(self, cap: int = TAIL_BYTES) -> SinceRead:
        got = self.log.read(cap)
        if got.skipped:
            self.on_gap(got.skipped)
        return got

    def skip_to(self, position: int) -> int:
        return self.log.skip_to(position)
