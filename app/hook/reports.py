"""A session's registry file as a hook sees it: its unreported finishes, its running wake
jobs, and marking finishes `seen` (the edge; `pending` and `wake_running` are pure).

The file is the MCP server's (`registry-<sha1(session)[:16]>.json`); other processes of a
session write it too, under the session's flock (`persist-<hash>.lock`), and the server
merges what they wrote before its own next write (`engine.registry.ownfile.merge_own`, where
`seen` is `mine or theirs`). So the hook takes that lock, reads the file afresh, picks
what is still unreported, marks it, writes the file atomically and only then answers:
two hooks at once, or a hook and a `job_wait`, never report one finish twice.
"""

from __future__ import annotations

import json
import os
import stat

from .registration import Registration

TYPE_CHECKING = False  # not `typing`: a hook with nothing to say imports as little as it can
if TYPE_CHECKING:
    from typing import Any

MAX_REGISTRY = 64 * 1024 * 1024
MAX_FINISHES = 20  # outcome lines per answer; the rest are reported by the next hook
RUNNING = "running"

try:
    import fcntl
except ImportError:  # Windows: no flock (one process per session there)
    fcntl = None  # type: ignore[assignment]


def registry_file(entry: Registration) -> str:
    return os.path.join(entry.registry_dir, entry.registry_name)


def lock_file(entry: Registration) -> str:
    return os.path.join(entry.registry_dir, entry.lock_name)


def _uid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else 0


def usable_dir(entry: Registration) -> bool:
    """The registry directory a registration names is a 0700 directory of ours."""
    try:
        st = os.lstat(entry.registry_dir)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == _uid() and not st.st_mode & 0o077


def read_file(path: str) -> dict[str, Any] | None:
    """The file's JSON object; None when it is missing, not ours or not a registry."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != _uid() or st.st_size > MAX_REGISTRY:
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        data = json.loads(b"".join(chunks))
    except (OSError, ValueError, RecursionError):
        return None
    finally:
        os.close(fd)
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), list):
        return None
    return data


def own_jobs(data: dict[str, Any] | None, session_id: str) -> list[dict[str, Any]]:
    if data is None:
        return []
    return [
        job
        for job in data["jobs"]
        if isinstance(job, dict)
        and job.get("sessionId") == session_id
        and isinstance(job.get("id"), str)
        and isinstance(job.get("status"), str)
    ]


def pending(jobs: list[dict[str, Any]], wake_only: bool, wake_all: bool) -> list[dict[str, Any]]:
    """Finished, not reported yet (`seen` false); of wake jobs only when `wake_only`
    (`wake_all`: the config's wake_on_finish makes every job a wake job). Oldest first."""
    found = [
        job
        for job in jobs
        if job["status"] != RUNNING
        and job.get("seen") is not True
        and (not wake_only or wake_all or job.get("wake") is True)
    ]
    return sorted(found, key=lambda j: j.get("finishedAt") or j.get("startedAt") or 0)


def wake_running(jobs: list[dict[str, Any]], wake_all: bool) -> list[dict[str, Any]]:
    return [j for j in jobs if j["status"] == RUNNING and (wake_all or j.get("wake") is True)]


class locked:
    """The session's flock, the one its server and CLI calls take before writing."""

    def __init__(self, entry: Registration) -> None:
        self.path = lock_file(entry)
        self.fd: int | None = None

    def __enter__(self) -> None:
        if fcntl is None:
            return
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        self.fd = os.open(self.path, flags, 0o600)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(self.fd)
            raise

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _write(path: str, data: dict[str, Any]) -> None:
    """Atomically, as the engine writes it: a fresh 0600 file beside it, fsync, rename."""
    folder, name = os.path.split(path)
    temp = os.path.join(folder, f".{name}.hook-{os.getpid()}-{os.urandom(4).hex()}.tmp")
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        try:
            os.write(fd, payload)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def take(entry: Registration, wake_only: bool) -> list[dict[str, Any]]:
    """The unreported finishes (see `pending`), marked `seen` in the file before they are
    returned; at most MAX_FINISHES. Nothing (and no lock, no write) when a plain read finds
    none: the path every tool call of an agent takes."""
    path = registry_file(entry)
    wake_all = entry.wake_on_finish
    if not pending(own_jobs(read_file(path), entry.session_id), wake_only, wake_all):
        return []
    with locked(entry):
        data = read_file(path)  # afresh, under the lock: what is still unreported now
        chosen = pending(own_jobs(data, entry.session_id), wake_only, wake_all)[:MAX_FINISHES]
        if not chosen or data is None:
            return []
        for job in chosen:
            job["seen"] = True
        _write(path, data)
    return chosen


def running_wake(entry: Registration) -> list[dict[str, Any]]:
    jobs = own_jobs(read_file(registry_file(entry)), entry.session_id)
    return wake_running(jobs, entry.wake_on_finish)


def finish_lines(entry: Registration, jobs: list[dict[str, Any]]) -> list[str]:
    """Each finish as the MCP server's finish notification says it (notify.finish_text,
    shaping.outcome; the hook imports no module of the server's):
    the outcome line, then the last output line of a job that did not succeed (a terminal
    job's as its screen shows it); all sanitized."""
    import time

    from jobs_tui.engine.records.format import outcome_line
    from jobs_tui.engine.records.model import JobRecord, JobStatus, RecordError
    from jobs_tui.engine.records.sanitize import sanitize_line
    from jobs_tui.engine.registry.paths import RegistryPaths

    from ..tty.text import shown_last_line

    paths = RegistryPaths(entry.registry_dir)  # where a terminal job's log may be read
    lines = []
    for job in jobs:
        try:
            record = JobRecord.from_json(job)
        except (RecordError, TypeError, ValueError, KeyError):
            lines.append(sanitize_line(f"{job.get('id')} finished ({job.get('status')})", 400))
            continue
        record = shown_last_line(paths, record)
        text = sanitize_line(outcome_line(record, time.time() * 1000), 400)  # as mcp.shaping
        if record.status is not JobStatus.EXITED and record.last_line:
            text += f" · last line: {sanitize_line(record.last_line, 300)}"
        lines.append(text)
    return lines


def running_line(job: dict[str, Any]) -> str:
    from jobs_tui.engine.records.sanitize import sanitize_line

    return sanitize_line(f"{job.get('id')} {job.get('label') or job.get('command') or ''}", 200)


def file_key(entry: Registration) -> tuple[int, int, int] | None:
    """The registry file's inode, size and mtime: a change means something was written."""
    try:
        st = os.stat(registry_file(entry))
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)
