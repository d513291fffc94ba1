"""Removing what the registry directory no longer needs: a removed record's files and
log, and temporary files a crashed writer left behind.

Every file of job `j<n>` is named `j<n>.<something>` (or `.j<n>.<something>` for a hidden
temporary file): a cleared job's files are found by listing the directory, so nothing a
shim wrote (its socket, a half-written exit file of a shim killed mid-write) is left.
A file of an id that no registry file names any more is removed by the next session's
load once it has not changed for STALE_ORPHAN_S (a start of another session writes its
record before its shim makes the first file, but our listing may be older than that).
"""

from __future__ import annotations

import re
import stat
import time
from pathlib import Path

from jobs_tui.engine.records.model import JobRecord

from . import regfiles
from .paths import RegistryPaths

STALE_TMP_S = 60.0
STALE_ORPHAN_S = 60.0
_OF_JOB = re.compile(r"^\.?(j[1-9][0-9]{0,8})\.")


def job_of(name: str) -> str | None:
    """`j7` for `j7.log`, `j7.sock`, `j7.status.123.tmp`, `.j7.end.x.tmp`; else None."""
    match = _OF_JOB.match(name)
    return match.group(1) if match else None


def _unlink(path: Path) -> None:
    """Remove a file, a symlink or a socket (never what a link points to, never a directory)."""
    try:
        if not stat.S_ISDIR(regfiles.lstat(path).st_mode):
            regfiles.unlink(path)
    except OSError:
        pass


def delete_job_files(paths: RegistryPaths, record: JobRecord) -> None:
    """Every file of the job in the directory, its socket, and both log segments (the log
    only inside the registry directory)."""
    for path in paths.job_files(record.id):
        regfiles.unlink(path)
    _unlink(paths.socket(record.id))
    try:
        names = regfiles.listdir(paths.root)
    except OSError:
        names = []
    for name in names:
        if job_of(name) == record.id:
            _unlink(paths.root / name)
    log = paths.inside(record.log_path)
    if log is not None:
        regfiles.unlink(log)
        regfiles.unlink(str(log) + ".1")


def remove_orphan_files(root: Path, known: set[str], now: float | None = None) -> int:
    """Files of jobs no record names (`known`: every id of every registry file), and
    temporary files of known jobs, untouched for STALE_ORPHAN_S. A job whose reservation
    lock is fresh is being started: its files stay. Returns how many were removed."""
    now = time.time() if now is None else now
    try:
        names = regfiles.listdir(root)
    except OSError:
        return 0
    by_job: dict[str, list[str]] = {}
    for name in names:
        job = job_of(name)
        if job is not None:
            by_job.setdefault(job, []).append(name)
    removed = 0
    for job, files in by_job.items():
        if f"{job}.lock" in files:
            continue  # reserved: a start is under way (stale locks go by reservations' rules)
        if job in known:
            files = [n for n in files if n.endswith(".tmp")]
        ages = []
        for name in files:
            try:
                ages.append(now - regfiles.lstat(root / name).st_mtime)
            except OSError:
                ages.append(0.0)
        if not files or min(ages) < STALE_ORPHAN_S:
            continue  # something of it changed lately: a start or a writer may be at work
        for name in files:
            _unlink(root / name)
            removed += 1
    return removed


def remove_stale_temp_files(root: Path) -> None:
    """`.*.tmp` files older than STALE_TMP_S: an atomic write that never got renamed."""
    now = time.time()
    try:
        names = regfiles.listdir(root)
    except FileNotFoundError:
        return
    for name in names:
        if name.startswith(".") and name.endswith(".tmp"):
            path = root / name
            try:
                if now - regfiles.lstat(path).st_mtime > STALE_TMP_S:
                    regfiles.unlink(path)
            except OSError:
                continue
