"""Who owns a record: the merge rule, take-overs, and which finished records may be pruned.

Pure rules, except `remove_from_file`, which edits another session's file the way that
session's own processes do: under its `persist-<hash>.lock`, by atomic rename.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: one process per session there
    fcntl = None  # type: ignore[assignment]

from jobs_tui.engine.records.model import JobRecord

from . import regfiles
from .paths import RegistryPaths
from .safefiles import REGISTRY_FILE_LIMIT, UnsafeFile, read_regular
from .store import write_json_atomic

TAKEN_FROM = "takenFrom"  # extra record field: the session a take-over took the job from
FINISHED_CEILING = 500  # finished records kept per session even when none was reported


def taken_from(record: JobRecord) -> str | None:
    value = record.unknown.get(TAKEN_FROM)
    return value if isinstance(value, str) else None


def prefer(a: JobRecord, b: JobRecord, session_id: str) -> JobRecord:
    """The format's merge rule: settled beats running, own beats peer, later beats earlier.

    First of all, a copy taken over from the other copy's session beats that copy: the
    old owner's file may still hold the job for a moment after a take-over.
    """
    if a.session_id != b.session_id:
        if taken_from(a) == b.session_id:
            return a
        if taken_from(b) == a.session_id:
            return b
    if a.running != b.running:
        return b if a.running else a
    if (a.session_id == session_id) != (b.session_id == session_id):
        return a if a.session_id == session_id else b
    return a if a.ended_at() >= b.ended_at() else b


# What a run's record says about its processes: set once, by whoever learned it first.
IDENTITY_FIELDS = ("pid", "start_token", "shim_pid", "shim_token", "status_path", "cgroup")
# What its end says: taken from the other copy only when both tell the same end.
OUTCOME_FIELDS = ("exit_code", "signal", "finished_at", "end_reason", "exit_status")


def merge_copies(a: JobRecord, b: JobRecord, session_id: str) -> JobRecord:
    """`prefer(a, b)`, missing nothing the other copy knew of the same run.

    Two copies of one running record, one written before its shim reported its pids
    (another process of the session saved what it read back then): whichever copy the
    rule prefers, a pid, token or path that only the other one holds is kept, since a
    run has one set of them. Of the end, a field is taken over only between copies of the
    same status: an outcome is never put together from two different ends.
    """
    winner = prefer(a, b, session_id)
    fill_from(winner, b if winner is a else a)
    return winner


def fill_from(winner: JobRecord, loser: JobRecord) -> None:
    """What `merge_copies` keeps of the copy that lost (see there)."""
    if winner.started_at != loser.started_at:
        return  # another run under the same id: nothing of it belongs here
    for name in IDENTITY_FIELDS:
        if getattr(winner, name, None) is None and getattr(loser, name, None) is not None:
            setattr(winner, name, getattr(loser, name))
    if winner.status is loser.status:
        for name in OUTCOME_FIELDS:
            if getattr(winner, name) is None and getattr(loser, name) is not None:
                setattr(winner, name, getattr(loser, name))


def prune_victims(finished: list[JobRecord], max_jobs: int) -> tuple[list[JobRecord], int]:
    """Which own finished records to drop, oldest first; and how many of them were unreported.

    Only records whose result was reported (`seen`) go while the count is over
    `max_jobs`; unreported ones stay, up to FINISHED_CEILING finished records in all,
    past which the oldest unreported go too.
    """
    excess = len(finished) - max_jobs
    if excess <= 0:
        return [], 0
    ordered = sorted(finished, key=lambda r: (r.ended_at(), r.number))
    victims = [r for r in ordered if r.seen][:excess]
    chosen = {r.id for r in victims}
    left = len(ordered) - len(victims)
    over = [r for r in ordered if r.id not in chosen][: max(0, left - FINISHED_CEILING)]
    return victims + over, len(over)


@contextlib.contextmanager
def session_lock(paths: RegistryPaths, session_id: str) -> Iterator[None]:
    """The flock every process of `session_id` takes before writing its file."""
    if fcntl is None or not (regfiles.held(paths.root) or paths.root.is_dir()):
        yield
        return
    lock = paths.persist_lock(session_id)
    fd = regfiles.open_file(lock, os.O_RDWR | os.O_CREAT)  # by name in the held directory
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def remove_from_file(
    paths: RegistryPaths, session_id: str, job_id: str, done: str = "taken over"
) -> str | None:
    """Drop `job_id` from `session_id`'s file (a take-over, or a clear: `done`); a problem
    line if it could not.

    Only the entry goes: every other byte of meaning (unknown fields, entries we could
    not parse) is kept, as the session itself would keep it.
    """
    path: Path = paths.registry_file(session_id)
    try:
        with session_lock(paths, session_id):
            data = json.loads(read_regular(path, REGISTRY_FILE_LIMIT))
            entries = data.get("jobs") if isinstance(data, dict) else None
            if not isinstance(entries, list):
                return None
            kept = [e for e in entries if not (isinstance(e, dict) and e.get("id") == job_id)]
            if len(kept) != len(entries):
                data["jobs"] = kept
                write_json_atomic(path, data)
    except FileNotFoundError:
        return None
    except (OSError, UnsafeFile, ValueError, RecursionError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "unreadable"
        return f"{path.name}: {job_id} was {done} but could not be removed there: {reason}"
    return None
