"""Heartbeat markers and session liveness: pid + process start time first, the TTL second."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from jobs_tui.engine.records.bounds import MAX_TIME_MS, PID_MAX, in_range
from jobs_tui.engine.shim import procs

from . import regfiles
from .paths import RegistryPaths
from .safefiles import SMALL_FILE_LIMIT, read_regular
from .store import write_json_atomic


@dataclass(frozen=True)
class Marker:
    session_id: str
    pid: int | None
    updated_at: int
    start_token: str | None = None
    persistent: bool = False


def write_marker(
    paths: RegistryPaths, session_id: str, now_ms: int, *, persistent: bool = False
) -> None:
    pid = os.getpid()
    data = {
        "sessionId": session_id,
        "pid": pid,
        "updatedAt": now_ms,
        "startToken": procs.start_token(pid),
        "persistent": persistent,
    }
    write_json_atomic(paths.marker_file(session_id), data, durable=False)


def remove_marker(paths: RegistryPaths, session_id: str) -> None:
    regfiles.unlink(paths.marker_file(session_id))


def read_marker(path: Path) -> Marker | None:
    """The marker at `path`, if it is a small regular file of ours holding one (else None)."""
    try:
        data = json.loads(read_regular(path, SMALL_FILE_LIMIT))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("sessionId"), str):
        return None
    pid = data.get("pid")
    updated = data.get("updatedAt")
    token = data.get("startToken")
    return Marker(
        session_id=data["sessionId"],
        pid=pid if isinstance(pid, int) and in_range(pid, 2, PID_MAX) else None,
        updated_at=updated if in_range(updated, 0, MAX_TIME_MS) else 0,
        start_token=token if isinstance(token, str) else None,
        persistent=data.get("persistent") is True,
    )


def marker_alive(marker: Marker | None, now_ms: int, ttl_ms: int) -> bool:
    """Alive: a live pid whose start token still matches; without a token, the TTL rule."""
    if marker is None:
        return False
    if marker.persistent:
        return True
    if marker.pid is None or not procs.pid_alive(marker.pid):
        return False
    if marker.start_token:
        return procs.start_token(marker.pid) == marker.start_token
    return now_ms - marker.updated_at <= ttl_ms


def session_alive(paths: RegistryPaths, session_id: str, now_ms: int, ttl_ms: int) -> bool:
    return marker_alive(read_marker(paths.marker_file(session_id)), now_ms, ttl_ms)
