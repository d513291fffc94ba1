"""Reading what a shim left behind: `<id>.status` (exact exit status) and `<id>.end` (why)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .model import MAX_EXIT_CODE, MAX_SIGNAL, valid_exit_status
from .paths import RegistryPaths

_STATUS = re.compile(rb"^-?\d{1,10}$")


@dataclass(frozen=True)
class ExitInfo:
    exit_status: int | None  # None: the status file holds no real outcome (see `note`)
    reason: str | None
    signal: str | None
    finished_at: int | None
    tail: str | None = None  # raw recent output, for the last line (sanitize before use)
    log_bytes: int | None = None
    note: str | None = None  # why the outcome is unknown although a status file exists


def _read_small(path: Path | None, limit: int) -> bytes | None:
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            return fh.read(limit + 1)
    except OSError:
        return None


def read_exit(paths: RegistryPaths, job_id: str, status_path: str | None) -> ExitInfo | None:
    """The recorded exit of a job, if its status file (inside the registry dir) says one."""
    candidate = paths.inside(status_path) if status_path else paths.status(job_id)
    raw = _read_small(candidate, 64)
    if raw is None or len(raw) > 64 or not _STATUS.match(raw.strip()):
        return None
    status = int(raw.strip())
    if not valid_exit_status(status):
        note = (
            f"{job_id}.status holds {raw.strip().decode()}, not an exit code "
            f"(0-{MAX_EXIT_CODE}) or a signal number (-1 to -{MAX_SIGNAL}): outcome unknown"
        )
        return ExitInfo(None, None, None, None, note=note)
    reason = signal = finished = line = size = None
    end_raw = _read_small(paths.end(job_id), 4096)
    if end_raw:
        try:
            end = json.loads(end_raw)
        except ValueError:
            end = {}
        if isinstance(end, dict):
            reason = end.get("reason") if isinstance(end.get("reason"), str) else None
            signal = end.get("signal") if isinstance(end.get("signal"), str) else None
            at = end.get("finishedAt")
            finished = at if isinstance(at, int) and not isinstance(at, bool) else None
            line = end.get("tail") if isinstance(end.get("tail"), str) else None
            size = end.get("bytes") if isinstance(end.get("bytes"), int) else None
    return ExitInfo(status, reason, signal, finished, line, size)
