"""Project-wide unique job ids: `j<n>.lock` created with O_EXCL, never over another job's files.

A number is free only when no record names it (the caller checks the registry files)
and none of its files exists: a start never deletes or reuses an earlier job's log,
status or end file. Locks left by `start` calls that were killed are pruned here.
"""

from __future__ import annotations

import json
import os
import time

from jobs_tui.engine.records.bounds import PID_MAX
from jobs_tui.engine.records.ids import MAX_JOB_NUMBER
from jobs_tui.engine.shim import procs

from . import regfiles
from .paths import RegistryPaths, job_file_number
from .safefiles import UnsafeFile, read_regular

LAUNCH_GRACE_MS = 30_000  # longer than any launch: a dead writer's shim may still be starting
STALE_LOCK_MS = 3_600_000  # a lock this old is stale whoever wrote it (a start takes seconds)


def reserve(
    paths: RegistryPaths, first: int, session_id: str, skip: set[int] | frozenset[int] = frozenset()
) -> str | None:
    """Claim the lowest `j<n>` with n >= first that is not in `skip` and has no files."""
    n = max(1, first)
    while n <= MAX_JOB_NUMBER:
        if n in skip or has_files(paths, n):
            n += 1
            continue
        job_id = f"j{n}"
        try:
            fd = regfiles.open_file(paths.lock(job_id), os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            n += 1
            continue
        try:
            pid = os.getpid()
            payload = {
                "sessionId": session_id,
                "pid": pid,
                "startToken": procs.start_token(pid),
                "at": int(time.time() * 1000),
            }
            os.write(fd, json.dumps(payload).encode())
        except OSError:
            release(paths, job_id)  # a full disk: no empty lock is left to block the id
            raise
        finally:
            os.close(fd)
        if has_files(paths, n):  # written by a racer between our check and our lock
            release(paths, job_id)
            n += 1
            continue
        return job_id
    return None


def has_files(paths: RegistryPaths, n: int) -> bool:
    """Any file of job j<n> besides its lock (a symlink or FIFO of that name counts too)."""
    job_id = f"j{n}"
    candidates = [paths.log(job_id), paths.previous_log(job_id), paths.log_base(job_id)]
    candidates += [paths.status(job_id), paths.end(job_id), paths.socket(job_id)]
    return any(regfiles.lexists(path) for path in candidates)


def release(paths: RegistryPaths, job_id: str) -> None:
    regfiles.unlink(paths.lock(job_id))


def scan(paths: RegistryPaths, now_ms: int) -> set[int]:
    """Numbers any file in the directory belongs to (locks included), in one listing;
    locks of `start` calls that died (or are hours old) are removed on the way."""
    used: set[int] = set()
    try:
        names = regfiles.listdir(paths.root)
    except FileNotFoundError:
        return used
    for name in names:
        n = job_file_number(name)
        if n is None:
            continue
        if name.endswith(".lock") and _stale(paths.root / name, now_ms):
            regfiles.unlink(paths.root / name)
            continue
        used.add(n)
    return used


def _stale(path: os.PathLike[str], now_ms: int) -> bool:
    try:
        age = now_ms - int(regfiles.lstat(path).st_mtime * 1000)
    except OSError:
        return False
    if age > STALE_LOCK_MS:
        return True
    if age < LAUNCH_GRACE_MS:
        return False
    try:
        data = json.loads(read_regular(path, 4096))
    except (OSError, ValueError, UnsafeFile):
        return False  # not ours to judge yet: the age rule decides
    pid = data.get("pid") if isinstance(data, dict) else None
    if isinstance(pid, bool) or not isinstance(pid, int) or not 1 < pid <= PID_MAX:
        return False
    token = data.get("startToken")
    return not procs.same_process(pid, token if isinstance(token, str) else None)
