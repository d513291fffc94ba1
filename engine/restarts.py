"""Restarting a job: the same command, cwd, label, environment, stdin/tty, deadline, detached.

The registry holds everything a restart needs except the values of the job's extra
environment (secrets, often) and a terminal's size: those are kept in `<id>.env`
(`RegistryPaths.env`), 0600 in the 0700 registry directory, written before the job's
shim starts and removed with the record. The registry JSON holds only the names
(`envNames`); no value is ever put on a command line.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .arguments import check, resolve_cwd
from .results import JobError, Refused
from .safefiles import check_stat, read_regular

if TYPE_CHECKING:
    from .manager import JobManager
    from .model import JobRecord
    from .paths import RegistryPaths

ENV_FILE_LIMIT = 4 * 1024 * 1024


@dataclass(frozen=True)
class Saved:
    """What a restart takes from the job's `.env` file."""

    env: dict[str, str]
    cols: int = 80
    rows: int = 24


def save(
    paths: RegistryPaths, job_id: str, env: dict[str, str] | None, cols: int, rows: int
) -> None:
    """Write the job's env file (0600, never following a planted link); raises OSError."""
    data = json.dumps({"env": env or {}, "cols": cols, "rows": rows}).encode()  # \\udcXX kept
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NONBLOCK
    fd = os.open(paths.env(job_id), flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        check_stat(os.fstat(fd))  # a planted FIFO or another user's file: refused
        os.fchmod(fd, 0o600)
        os.write(fd, data)
    finally:
        os.close(fd)


def load(paths: RegistryPaths, record: JobRecord) -> Saved:
    """The job's saved environment and size; JobError when its values are gone or unreadable.

    A job started without extra environment (and not on a terminal) may have no file.
    """
    try:
        data = json.loads(read_regular(paths.env(record.id), ENV_FILE_LIMIT))
    except FileNotFoundError:
        if record.env_names:
            raise JobError(
                f"{record.id}: the values of its environment ({', '.join(record.env_names)}) "
                "are gone; not restarted",
                "id",
            ) from None
        return Saved({})
    except (OSError, ValueError) as exc:
        message = f"{record.id}: its saved environment is unreadable ({exc}); not restarted"
        raise JobError(message, "id") from None
    env = data.get("env") if isinstance(data, dict) else None
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise JobError(f"{record.id}: its saved environment is malformed; not restarted", "id")
    cols, rows = data.get("cols"), data.get("rows")
    if not (isinstance(cols, int) and isinstance(rows, int)):
        cols, rows = 80, 24
    return Saved(env, cols, rows)


async def restart(jm: JobManager, job_id: str) -> JobRecord:
    """See `JobManager.restart`. Everything is checked before the old job is touched."""
    check("id", job_id)
    record = jm.get(job_id)
    if record.running and not jm.is_own(record):
        message = f"{job_id} is another session's job; not restarted (take it over first)."
        raise Refused(message, "id")
    saved = load(jm.paths, record)
    cwd = resolve_cwd(record.cwd, jm.cwd)
    if record.running:
        await jm.kill(record.id)
        record = jm.get(record.id)
        if record.running:
            raise JobError(f"{record.id} did not stop within the grace period; not restarted", "id")
    return await jm.start(
        record.command,
        label=record.label,
        stdin=record.stdin and not record.tty,
        timeout_ms=record.timeout_ms,
        wake=record.wake,
        detached=record.detached,
        cwd=cwd,
        tty=record.tty,
        cols=saved.cols,
        rows=saved.rows,
        env=saved.env or None,
        restart_of=record.id,
    )
