"""A terminal job's output as bytes, for a door that renders it (`jobs_tui.term.text`).

The engine never imports a terminal emulator (pyte): its typed API gives a `tty` job's
log as the raw bytes it is, with the screen size (`RawTail`), and the doors that show
text (the command line, the MCP server, the screens) render it. The vocabularies of
`engine.tools`, used by Python hosts, take a `TtyRenderer` to do the same: without one
they give the sanitized bytes, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from jobs_tui.engine.records.results import Refused
from jobs_tui.engine.registry.safefiles import read_regular
from jobs_tui.engine.shim.protocol import previous_of, sizes_of
from jobs_tui.engine.shim.sizeindex import MAX_FILE_BYTES, parse

from .follower import LOG_END, LogFollower

if TYPE_CHECKING:
    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.engine.registry.paths import RegistryPaths

RAW_TAIL_BYTES = 1024 * 1024  # what a rendering reads of a log at most (term.plan.SCAN_BYTES:
# it emulates the last 256 KiB, or a main-screen program from its last redraw within this)
SEARCH_BYTES = 4 * 1024 * 1024  # what a search of a terminal job's rows emulates at most:
# plain lines go at tens of MiB/s, a full-screen program's redraws at 1-2 MiB/s
LAST_LINE_BYTES = 32 * 1024  # what a last line is rendered from
DEFAULT_SIZE = (80, 24)  # a terminal job's screen when its record has no size (old records)


@dataclass(frozen=True)
class RawTail:
    """The log's last bytes as written: `data` starts at absolute position `offset`
    (`whole`: nothing was written before it), the log ends at `end`; `cols` x `rows`
    is the job's terminal now; `sizes` (offset, cols, rows) the sizes it had from the
    byte each began at (empty: never resized); `times` (offset, ms) when its bytes were
    written, when asked for."""

    data: bytes
    offset: int
    end: int
    cols: int
    rows: int
    sizes: tuple[tuple[int, int, int], ...] = ()
    times: tuple[tuple[int, int], ...] = ()
    capped: bool = False  # the log retains bytes before `offset`: `cap` left them out

    @property
    def whole(self) -> bool:
        return self.offset == 0


class LogSource(Protocol):
    """What a raw tail reads through: a session's records and followers of their logs
    (`JobManager` is one; the logs sit below the session, so they name only this)."""

    def get(self, job_id: str) -> JobRecord: ...

    def log_files(self, record: JobRecord) -> tuple[str, str]: ...

    def follow(self, job_id: str, position: int = LOG_END) -> LogFollower: ...


class TtyRenderer(Protocol):
    """Renders a terminal job's bytes as the rows a terminal shows (scrollback, then the
    screen, trailing blank rows dropped)."""

    def __call__(self, tail: RawTail) -> list[str]: ...


class DatedRowLike(Protocol):
    """A row as a terminal shows it, with where (`offset`) and when (`at_ms`) the bytes
    that made it final were written (`jobs_tui.term.history.DatedRow`)."""

    text: str
    offset: int
    at_ms: int | None


class TtyDater(Protocol):
    """What a `TtyRenderer` may also do (the command line's and the MCP server's do; a
    host's renderer without it leaves grep/since/timestamps on the bytes' lines):
    `dated(tail)`: its rows, each dated; `history(tail)`: every row the bytes made final,
    in order, dated (what grep searches: `tail` is then the whole retained log)."""

    def dated(self, tail: RawTail) -> list[DatedRowLike]: ...

    def history(self, tail: RawTail) -> Iterable[DatedRowLike]: ...


class ScreenDelta(Protocol):
    """What a terminal shows for `new` bytes written after `prior` ones (`whole`: prior
    starts at the output's start), on a `cols` x `rows` screen: the rows they made
    final, then (unless `ended`) the rows still open up to the cursor's (a prompt).
    A job that was resized is also given its `sizes` and `at`, the absolute offset of
    `prior`'s first byte (a host's delta without them is given neither)."""

    def __call__(
        self,
        prior: bytes,
        whole: bool,
        new: bytes,
        cols: int,
        rows: int,
        ended: bool,
        **sized: Any,
    ) -> str: ...


def last_row(rows: list[str]) -> str:
    """The last non-blank row, its runs of blanks made one (as `record.last_line` is)."""
    for row in reversed(rows):
        if row.strip():
            return " ".join(row.split())
    return ""


def term_size(record: JobRecord) -> tuple[int, int]:
    """(cols, rows) the job's terminal has now, as its record says (the last resize)."""
    if record.term_cols and record.term_rows:
        return record.term_cols, record.term_rows
    return DEFAULT_SIZE


def read_sizes(live: str | None) -> tuple[tuple[int, int, int], ...]:
    """The sizes a terminal job's screen had (sizeindex); () without a record of them."""
    if live is None:
        return ()
    try:
        return tuple(parse(read_regular(sizes_of(live), MAX_FILE_BYTES * 2)))
    except OSError:
        return ()


def read_tail(
    follow_at: Callable[[int], LogFollower],
    record: JobRecord,
    cap: int,
    live: str | None = None,
    dated: bool = False,
) -> RawTail:
    """Blocking: the last `cap` bytes of the log (raises JobError as a follower does),
    with the sizes (read beside `live`) and, when `dated`, the times of its bytes."""
    follower = follow_at(LOG_END)
    end = follower.position
    follower.position = max(0, end - cap)
    sizes = read_sizes(live) if record.tty else ()
    got = follower.read(cap)
    cols, rows = term_size(record)
    times: tuple[tuple[int, int], ...] = ()
    if dated and live is not None:
        from .search import read_times

        times = tuple(read_times(live))
    capped = got.offset > 0 and not got.skipped
    return RawTail(got.data, got.offset, max(end, got.end), cols, rows, sizes, times, capped)


async def raw_tail(
    manager: LogSource, job_id: str, cap: int = RAW_TAIL_BYTES, dated: bool = False
) -> RawTail:
    """The job's last `cap` bytes of output, raw (UnknownJob, JobError when unreadable);
    `dated`: with the times of its bytes (the time index)."""
    import asyncio  # here: `list` and `status` read a tail without an event loop

    record = manager.get(job_id)
    live = manager.log_files(record)[0]

    def follow_at(position: int) -> LogFollower:
        return manager.follow(job_id, position)

    return await asyncio.to_thread(read_tail, follow_at, record, cap, live, dated)


def record_follower(paths: RegistryPaths, record: JobRecord) -> Callable[[int], LogFollower]:
    """Followers of the job's log without a session; a log outside the registry directory
    is refused (Refused), as the manager refuses it."""
    live = paths.inside(record.log_path)
    if live is None:
        raise Refused(f"{record.id}: its log path lies outside the registry directory", "id")

    def follow_at(position: int) -> LogFollower:
        return LogFollower(record.id, str(live), previous_of(str(live)), position)

    return follow_at


def record_tail(paths: RegistryPaths, record: JobRecord, cap: int = RAW_TAIL_BYTES) -> RawTail:
    """Blocking, without a session (`list` and `status` from a glance): as `raw_tail`."""
    live = paths.inside(record.log_path)
    return read_tail(record_follower(paths, record), record, cap, str(live) if live else None)
