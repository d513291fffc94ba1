"""Helpers for the declared-job tests: a declaration, polls with deadlines, the files."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from typing import Any

from jobs_tui.engine import JobManager
from jobs_tui.engine.records.model import JobRecord


def decl(name: str, **overrides: Any) -> dict[str, Any]:
    """A declaration as declfile's DeclaredJob.to_spec gives it, defaults filled in."""
    spec: dict[str, Any] = {
        "name": name,
        "ready": None,
        "restart": "no",
        "max_restarts": None,
        "backoff_ms": 0,
        "depends": [],
        "stop_signal": "SIGTERM",
        "kill_grace_ms": 2000,
    }
    spec.update(overrides)
    return spec


def probe(kind: str, target: Any, **overrides: Any) -> dict[str, Any]:
    spec = {"kind": kind, "target": target, "period_ms": 50, "timeout_ms": 500, "limit_ms": None}
    return spec | overrides


def dep(record: JobRecord, until: str) -> dict[str, Any]:
    return {"id": record.id, "name": record.declared_name, "until": until}


async def until(check: Callable[[], Any], timeout: float = 5.0, what: str = "") -> Any:
    """Poll `check` every 20 ms until it is truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout}s: {what or check}")
        await asyncio.sleep(0.02)


def record(jm: JobManager, job_id: str) -> JobRecord:
    found = jm.registry.get(job_id)
    assert found is not None
    return found


def read_json(path: Any) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(path: str, message: dict[str, Any]) -> dict[str, Any]:
    """One request on a shim's socket, its reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect(path)
        sock.sendall(json.dumps(message).encode() + b"\n")
        data = b""
        while b"\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return json.loads(data.split(b"\n", 1)[0])


def ended(jm: JobManager, job_id: str) -> Callable[[], JobRecord | None]:
    """A check for `until`: the record once the job has finished."""

    def check() -> JobRecord | None:
        found = record(jm, job_id)
        return None if found.running else found

    return check


def on_disk(jm: JobManager, job_id: str) -> dict[str, Any]:
    """The job's entry in this session's registry file, as written."""
    data = read_json(jm.paths.registry_file(jm.session_id)) or {}
    return next(entry for entry in data.get("jobs", []) if entry["id"] == job_id)
