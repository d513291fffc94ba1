"""A terminal job's output as bytes, for a door that renders it (`jobs_tui.term.text`).

The engine never imports a terminal emulator (pyte): its typed API gives a `tty` job's
log as the raw bytes it is, with the screen size (`RawTail`), and the doors that show
text (the command line, the MCP server, the screens) render it. The vocabularies of
`engine.tools`, used by Python hosts, take a `TtyRenderer` to do the same: without one
they give the sanitized bytes, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .follower import LOG_END, LogFollower
from .protocol import previous_of
from .results import Refused

if TYPE_CHECKING:
    from .manager import JobManager
    from .model import JobRecord
    from .paths import RegistryPaths

RAW_TAIL_BYTES = 256 * 1024  # what a rendering reads of a log at most (term.text.TEXT_BYTES)
LAST_LINE_BYTES = 32 * 1024  # what a last line is rendered from
DEFAULT_SIZE = (80, 24)  # a terminal job's screen when its record has no size (old records)


@dataclass(frozen=True)
class RawTail:
    """The log's last bytes as written: `data` starts at absolute position `offset`
    (`whole`: nothing was written before it), the log ends at `end`; `cols` x `rows`
    is the job's terminal now."""

    data: bytes
    offset: int
    end: int
    cols: int
    rows: int

    @property
    def whole(self) -> bool:
        return self.offset == 0


class TtyRenderer(Protocol):
    """Renders a terminal job's bytes as the rows a terminal shows (scrollback, then the
    screen, trailing blank rows dropped)."""

    def __call__(self, tail: RawTail) -> list[str]: ...


class ScreenDelta(Protocol):
    """What a terminal shows for `new` bytes written after `prior` ones (`whole`: prior
    starts at the output's start), on a `cols` x `rows` screen: the rows they made
    final, then (unless `ended`) the rows still open up to the cursor's (a prompt)."""

    def __call__(
        self, prior: bytes, whole: bool, new: bytes, cols: int, rows: int, ended: bool
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


def read_tail(follow_at: Callable[[int], LogFollower], record: JobRecord, cap: int) -> RawTail:
    """Blocking: the last `cap` bytes of the log (raises JobError as a follower does)."""
    follower = follow_at(LOG_END)
    end = follower.position
    follower.position = max(0, end - cap)
    got = follower.read(cap)
    cols, rows = term_size(record)
    return RawTail(got.data, got.offset, max(end, got.end), cols, rows)


async def raw_tail(manager: JobManager, job_id: str, cap: int = RAW_TAIL_BYTES) -> RawTail:
    """The job's last `cap` bytes of output, raw (UnknownJob, JobError when unreadable)."""
    import asyncio  # here: `list` and `status` read a tail without an event loop

    record = manager.get(job_id)

    def follow_at(position: int) -> LogFollower:
        return manager.follow(job_id, position)

    return await asyncio.to_thread(read_tail, follow_at, record, cap)


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
    return read_tail(record_follower(paths, record), record, cap)
