"""What `job_strays` and `job_kill` with `pid` give a model (issue 27): the one place it
is given pids, since no job id names a stray. A stray's command line is what the process
says it is, so it is sanitized here, as a job's output is."""

from __future__ import annotations

from typing import Any

from jobs_tui.engine.records.sanitize import sanitize_line

_STR: dict[str, Any] = {"type": "string"}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_BOOL: dict[str, Any] = {"type": "boolean"}

MODEL_STRAY: dict[str, Any] = {
    "type": "object",
    "description": "A process that escaped the jobs: kill it with job_kill and its pid.",
    "required": ["pid", "command", "ageS", "cpuPercent", "rssBytes", "ports"],
    "properties": {
        "pid": {"type": "integer", "minimum": 1},
        "command": {**_STR, "description": "Its command line (sanitized)."},
        "ageS": {"type": "number", "minimum": 0},
        "cpuPercent": {"type": "number", "minimum": 0, "description": "Over its life."},
        "rssBytes": _COUNT,
        "ports": {"type": "array", "items": _STR, "description": "e.g. 5173/tcp"},
    },
    "additionalProperties": False,
}
MODEL_STRAY_KILLED: dict[str, Any] = {
    "type": "object",
    "description": "kill with pid: the stray whose tree was killed.",
    "required": ["pid", "command", "processes", "escalated"],
    "properties": {
        "pid": {"type": "integer", "minimum": 1},
        "command": _STR,
        "processes": {**_COUNT, "description": "Processes of its tree the kill reached."},
        "escalated": {**_BOOL, "description": "SIGKILL followed the grace."},
    },
    "additionalProperties": False,
}


def ports(found: Any) -> list[str]:
    """[{port, proto}] -> ["5173/tcp"]."""
    shown = []
    for port in found if isinstance(found, list) else []:
        if isinstance(port, dict) and isinstance(port.get("port"), int):
            shown.append(f"{port['port']}/{port.get('proto', 'tcp')}")
    return shown


def model_stray(data: dict[str, Any]) -> dict[str, Any]:
    """A stray as a model reads it: its command line sanitized (it says what it likes)."""
    return {
        "pid": data.get("pid"),
        "command": sanitize_line(str(data.get("command", "")), 400),
        "ageS": data.get("ageS", 0),
        "cpuPercent": data.get("cpuPercent", 0),
        "rssBytes": data.get("rss", 0),
        "ports": ports(data.get("ports")),
    }
