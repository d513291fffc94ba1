"""A session's strays (issue 27, feature 2): the project's, every known job's tree left out,
and a kill of several that checks them all first, so a mistyped pid kills nothing.

`strays.gather` decides what a stray is; this module adds what only a manager knows (the
jobs' trees, its own and its peers', for processes that emptied their environment and so
carry no job marker) and the kill's escalation: SIGTERM to each tree, SIGKILL after the
grace to whatever of it still lives (the same process: its start time is checked, so a
reused pid is spared). Blocking: the manager calls it off the event loop.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass

from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.results import InvalidArgument
from jobs_tui.engine.shim import sweep

from . import strays
from .strays import Stray

POLL_S = 0.05


@dataclass(frozen=True)
class StrayKill:
    """One stray's tree, killed: how many processes the kill reached, and whether any of
    them outlived SIGTERM's grace (then SIGKILL followed)."""

    pid: int
    command: str  # raw: sanitize it before showing it
    processes: int
    escalated: bool

    def to_json(self) -> dict[str, object]:
        return {
            "pid": self.pid,
            "command": self.command,
            "processes": self.processes,
            "escalated": self.escalated,
        }


def job_pids(records: Iterable[JobRecord]) -> set[int]:
    """Every running job's shim, leader and their descendants, as one scan finds them."""
    running = [r for r in records if r.running]
    if not running:
        return set()
    table = sweep.scan()
    pids: set[int] = set()
    for record in running:
        for root in (record.shim_pid, record.pid):
            if root:
                pids.add(root)
                pids.update(p.pid for p in sweep.tree_of(table, root))
    return pids


def gather(project: str, records: Iterable[JobRecord]) -> list[Stray]:
    return strays.gather(project, job_pids(records))


def kill(
    project: str, records: Iterable[JobRecord], pids: list[int], grace_s: float
) -> list[StrayKill]:
    """Kill each stray's tree; every pid is checked before anything is sent, and one that
    is not a stray of `project` now is an InvalidArgument naming `pid` (nothing killed)."""
    found = {s.pid: s for s in gather(project, records)}
    for pid in pids:
        if pid not in found:
            raise InvalidArgument(
                f"pid {pid} is not a stray of this project (not running, a job's, or not "
                "orphaned inside it); nothing was killed",
                "pid",
            )
    return [_kill_one(found[pid], grace_s) for pid in dict.fromkeys(pids)]


def _start_of(pid: int) -> str | None:
    """When `pid` started (a token to compare), or None if it is gone or a zombie."""
    if not strays.LINUX:  # pragma: no cover - Linux is what CI tests
        return _start_psutil(pid)
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    if len(fields) < 20 or fields[0] in (b"Z", b"X"):
        return None  # a zombie is dead already: its parent reaps it
    return fields[19].decode()


def _start_psutil(pid: int) -> str | None:  # pragma: no cover
    import psutil

    try:
        proc = psutil.Process(pid)
        return None if proc.status() == psutil.STATUS_ZOMBIE else repr(proc.create_time())
    except psutil.Error:
        return None


def _kill_one(stray: Stray, grace_s: float) -> StrayKill:
    table = sweep.scan()
    members = [stray.pid, *(p.pid for p in sweep.tree_of(table, stray.pid))]
    starts = {pid: _start_of(pid) for pid in members}
    sweep.signal_tree(stray.pid, signal.SIGTERM)
    _signal(stray.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    alive = _alive(starts)
    while alive and time.monotonic() < deadline:
        time.sleep(POLL_S)
        alive = _alive(starts)
    for pid in alive:
        _signal(pid, signal.SIGKILL)
    return StrayKill(stray.pid, stray.command, len(members), bool(alive))


def _alive(starts: dict[int, str | None]) -> list[int]:
    return [pid for pid, start in starts.items() if start is not None and _start_of(pid) == start]


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass
