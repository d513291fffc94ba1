"""What a screen needs from its job source: a `JobManager`, or anything with the same methods.

Screens are written against this protocol so a host can hand them a read-only view
(a peer browser, a test double) without a live manager behind it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from jobs_tui.engine.config import Config
    from jobs_tui.engine.logs.segments import SinceRead
    from jobs_tui.engine.procs.resources import JobUsage
    from jobs_tui.engine.records.model import JobEvent, JobRecord
    from jobs_tui.engine.records.results import KillResult, LogsResult

Clock = Callable[[], float]
"""Returns the time as epoch milliseconds; injected so snapshots can freeze it."""


def wall_clock() -> float:
    return time.time() * 1000


class LogFollow(Protocol):
    """A job's log followed from one absolute byte position (`JobManager.follow` returns one).

    `read` returns raw bytes from `position` on (`data`, `offset`, `skipped`: bytes that
    rotated away unseen, `end`: the log's end when read) and moves `position` past them;
    it raises `JobError` when the log cannot be read.
    """

    position: int

    def read(self, cap: int = ...) -> SinceRead: ...
    def skip_to(self, position: int) -> int: ...


class JobSource(Protocol):
    """The subset of `JobManager` the screens use.

    A screen reads a log only through `logs` (a bounded tail that ends at a `position`)
    and `follow(job_id, position)` (what comes after it; the end as it is now without a
    position), never through a file path, so a read-only view over another source can
    show and follow logs too.

    Optional members, used when the source has them (a `JobManager` has all of them):

    - `async latest_line(job_id) -> str | None`: the job's latest output line read from
      its log (sanitized; None when the log is missing). Without it the detail pane
      shows `record.last_line`.
    - `take_problems() -> list[str]`: registry problems not reported yet (quarantined
      files, skipped entries, refused directories); each is shown once as a notification.
    - `pruned: int`: how many older finished jobs were pruned by `max_jobs`.
    - `mark_seen(job_id)`: the user looked at a finished job's log; its result is seen.
    - `async usage(ids) -> dict[str, JobUsage]`: what running jobs use (CPU, memory,
      processes, listening ports), sampled off the event loop; the list asks once a second
      while it is shown. Without it the detail pane has no usage line.
    - `async send_bytes(job_id, data, eof=False) -> dict`: raw bytes to an own running
      job's terminal (or stdin); the terminal screen's typing mode sends every key with
      it. Without it `i` there says the job cannot be typed into.
    - `async resize(job_id, cols, rows) -> JobRecord`: a terminal job's window size (the
      program sees SIGWINCH); typing mode keeps it the size of the pane.
    - `async log_lines(job_id, offset=None, *, before=0, after=0) -> LinePage`: up to
      `before` lines ending at absolute byte `offset` of the retained log (None: its end)
      and `after` from there, each with its offset and time, sanitized with SGR kept
      (`engine.logs.window.read_lines`). With it the log pane pages through the whole
      retained log (Home, scrolling up past the loaded lines, find's matches); without
      it the pane holds the tail it opened with.
    - `async search(job_id, pattern, *, limit=...) -> SearchResult`: the engine's search
      of the whole retained log (`JobManager.search`, as `logs --grep`); with it and
      `log_lines` the pane's find counts and reaches every match.
    - `async interrupt(job_id) -> KillResult`: SIGINT to an own running job's process
      group, a terminal's Ctrl-C (not a kill: no `stopping`, no SIGKILL after the grace);
      the log pane's input bar sends it with ctrl+c. Without it ctrl+c says why not.

    A screen made with `supervise=True` calls `kill`, `restart`, `clear`, `send`,
    `send_bytes`, `resize` and `interrupt` with the keyword `supervise=True` (another
    session's job, acted on where it is: `JobManager` has it); a source for such a
    screen must take it.
    """

    session_id: str
    config: Config

    def jobs(self, include_peers: bool = True) -> list[JobRecord]: ...
    def is_own(self, record: JobRecord) -> bool: ...
    def get(self, job_id: str) -> JobRecord: ...
    def subscribe(self, callback: Callable[[JobEvent], None]) -> Callable[[], None]:
        """Events with `record` (the changed record) update their rows in place; an event
        without one has the table re-read. What no event reports (peers' files) is found
        by the screen's slow reconcile, once a second."""
        ...

    def pending_reports(self) -> list[JobRecord]: ...
    def follow(self, job_id: str, position: int = ...) -> LogFollow: ...
    async def logs(
        self,
        job_id: str,
        lines: int | None = None,
        *,
        keep_sgr: bool = False,
        timestamps: bool = False,
    ) -> LogsResult:
        """`timestamps=True`: `times` holds each line's wall-clock ms (None where unknown)."""
        ...

    async def restart(self, job_id: str) -> JobRecord:
        """Kill the job if it runs, start the same command as a new job; the new record."""
        ...

    async def usage(self, ids: list[str] | None = None) -> dict[str, JobUsage]: ...
    async def kill(self, job_id: str, signal: str = "SIGTERM") -> KillResult: ...
    async def interrupt(self, job_id: str) -> KillResult: ...
    async def adopt(self, job_id: str) -> JobRecord: ...
    async def clear(self, job_id: str | None = None, all: bool = False) -> list[JobRecord]: ...
    async def send(
        self, job_id: str, text: str | None = None, newline: bool = True, eof: bool = False
    ) -> dict[str, Any]: ...
