"""Reading what a shim left behind: `<id>.status` (exact exit status) and `<id>.end` (why)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jobs_tui.engine.records.bounds import MAX_BYTES, MAX_TIME_MS, in_range
from jobs_tui.engine.records.model import MAX_EXIT_CODE, MAX_SIGNAL, valid_exit_status

from .paths import RegistryPaths
from .safefiles import UnsafeFile, open_regular

_STATUS = re.compile(rb"^-?\d{1,10}$")
END_LIMIT = 16 * 1024  # an end file read at most this far


@dataclass(frozen=True)
class ExitInfo:
    exit_status: int | None  # None: the status file holds no real outcome (see `note`)
    reason: str | None
    signal: str | None
    finished_at: int | None
    tail: str | None = None  # raw recent output, for the last line (sanitize before use)
    log_bytes: int | None = None
    note: str | None = None  # why the outcome is unknown although a status file exists
    lost_bytes: int | None = None  # output the log could not keep (the end's lostBytes)
    log_note: str | None = None  # and why ("disk full")
    remaining: int | None = None  # processes of the tree alive at the exit (the end's)
    restarts: int | None = None  # a declared job's restarts by its shim (the end's)
    last_exit: int | None = None  # and the exit status the last of them followed
    phase_detail: str | None = None  # and why it ended (crash loop, a dependency), raw
    oom_source: str | None = None  # an OOM kill counter moved at its SIGKILL (the end's oomKill)
    door: str | None = None  # a kill request's door and session (the end's killedBy)
    door_session: str | None = None
    requested_signal: str | None = None  # what that request sent first


def end_extras(end: dict) -> dict:
    """The end's (or exit event's) `oomKill` and `killedBy`, as ExitInfo's keywords;
    malformed or absent parts are left out (a peer's or an older shim's end has none)."""
    out: dict = {}
    oom = end.get("oomKill")
    if isinstance(oom, dict) and oom.get("source") in ("cgroup", "machine"):
        kills = oom.get("kills")
        if type(kills) is int and kills >= 1:
            out["oom_source"] = oom["source"]
    by = end.get("killedBy")
    if isinstance(by, dict):
        for key, attr in (("door", "door"), ("session", "door_session")):
            value = by.get(key)
            if isinstance(value, str) and 0 < len(value) <= 200:
                out[attr] = value
        sent = by.get("signal")
        if isinstance(sent, str) and len(sent) <= 16:
            out["requested_signal"] = sent
    return out


def from_message(message: dict) -> ExitInfo:
    """An ExitInfo from a shim's exit event or finished state (its end's fields)."""
    return ExitInfo(
        message.get("exitStatus"),
        message.get("reason"),
        message.get("signal"),
        message.get("finishedAt"),
        **end_extras(message),
    )


def _read_small(
    path: Path | None, limit: int, problems: Callable[[str], object] | None = None
) -> bytes | None:
    """The file's first bytes (opened safely: a FIFO, symlink or another user's is refused)."""
    if path is None:
        return None
    try:
        fd = open_regular(path)
    except UnsafeFile as exc:
        if problems is not None:
            problems(f"{path.name}: {exc.strerror}")
        return None
    except OSError:
        return None
    try:
        return os.pread(fd, limit + 1, 0)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_exit(
    paths: RegistryPaths,
    job_id: str,
    status_path: str | None,
    problems: Callable[[str], object] | None = None,
) -> ExitInfo | None:
    """The recorded exit of a job, if its status file (inside the registry dir) says one.

    `problems` hears about a status or end file that was refused (see safefiles).
    """
    candidate = paths.inside(status_path) if status_path else paths.status(job_id)
    raw = _read_small(candidate, 64, problems)
    if raw is None or len(raw) > 64 or not _STATUS.match(raw.strip()):
        return None
    status = int(raw.strip())
    if not valid_exit_status(status):
        note = (
            f"{job_id}.status holds {raw.strip().decode()}, not an exit code "
            f"(0-{MAX_EXIT_CODE}) or a signal number (-1 to -{MAX_SIGNAL}): outcome unknown"
        )
        return ExitInfo(None, None, None, None, note=note)
    reason = signal = finished = line = size = lost = why = left = None
    # The end holds up to 2 KiB of raw output as JSON (a control byte is 6 bytes there):
    # read enough of it to parse, whatever the tail was.
    end_raw = _read_small(paths.end(job_id), END_LIMIT, problems)
    restarts = last_exit = detail = None
    extras: dict = {}
    if end_raw:
        try:
            end = json.loads(end_raw)
        except ValueError:
            end = {}
        if isinstance(end, dict):
            reason = end.get("reason") if isinstance(end.get("reason"), str) else None
            signal = end.get("signal") if isinstance(end.get("signal"), str) else None
            at = end.get("finishedAt")
            finished = at if isinstance(at, int) and in_range(at, 0, MAX_TIME_MS) else None
            line = end.get("tail") if isinstance(end.get("tail"), str) else None
            size = end.get("bytes")
            size = size if isinstance(size, int) and in_range(size, 0, MAX_BYTES) else None
            lost = end.get("lostBytes")
            lost = lost if isinstance(lost, int) and in_range(lost, 0, MAX_BYTES) else None
            why = end.get("logNote") if isinstance(end.get("logNote"), str) else None
            left = end.get("remaining")
            left = left if isinstance(left, int) and in_range(left, 0, MAX_BYTES) else None
            restarts = end.get("restarts")
            restarts = restarts if isinstance(restarts, int) and restarts >= 0 else None
            last_exit = status_value_of(end.get("lastExit"))
            detail = end.get("phaseDetail") if isinstance(end.get("phaseDetail"), str) else None
            extras = end_extras(end)
    return ExitInfo(
        status,
        reason,
        signal,
        finished,
        line,
        size,
        lost_bytes=lost,
        log_note=why,
        remaining=left,
        restarts=restarts,
        last_exit=last_exit,
        phase_detail=detail[:500] if detail else None,
        **extras,
    )


def status_value_of(value: object) -> int | None:
    """An exit status (a code, or -N for signal N) as a file holds it, else None."""
    if isinstance(value, int) and not isinstance(value, bool) and valid_exit_status(value):
        return value
    return None
