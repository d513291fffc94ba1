"""Validation of `job` tool calls: pure, complete, and before any side effect.

`validate` turns an untrusted dict into a typed `JobCall` or raises `CallError`
whose message names the offending field. Nothing here touches a process; the
only file-system look is whether a start's `cwd` is a directory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .model import ACTIONS, KILL_SIGNALS
from .paths import is_job_id

MAX_COMMAND = 4000
MAX_LABEL = 120
MAX_INPUT = 8192
MAX_LINES = 2000
MAX_START_TIMEOUT_MS = 24 * 60 * 60 * 1000
MAX_WAIT_MS = 600_000
DEFAULT_WAIT_MS = 30_000

FIELDS: dict[str, type | tuple[type, ...]] = {
    "action": str,
    "command": str,
    "cwd": str,
    "label": str,
    "wake": bool,
    "detached": bool,
    "stdin": bool,
    "id": str,
    "lines": int,
    "input": str,
    "newline": bool,
    "eof": bool,
    "signal": str,
    "timeoutMs": int,
    "all": bool,
}

APPLIES: dict[str, frozenset[str]] = {
    "start": frozenset({"command", "cwd", "label", "wake", "detached", "stdin", "timeoutMs"}),
    "list": frozenset({"all"}),
    "status": frozenset({"id"}),
    "logs": frozenset({"id", "lines"}),
    "send": frozenset({"id", "input", "newline", "eof"}),
    "kill": frozenset({"id", "signal"}),
    "wait": frozenset({"id", "timeoutMs"}),
    "clear": frozenset({"id", "all"}),
}
NEEDS_ID = frozenset({"status", "logs", "send", "kill", "wait"})


class CallError(ValueError):
    """A call that cannot be run; the message names the field."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class JobCall:
    action: str
    command: str | None = None
    cwd: str | None = None
    label: str | None = None
    wake: bool | None = None
    detached: bool | None = None
    stdin: bool = False
    id: str | None = None
    lines: int | None = None
    input: str | None = None
    newline: bool = True
    eof: bool = False
    signal: str = "SIGTERM"
    timeout_ms: int | None = None
    all: bool = False
    tty: bool = False  # not a `job` tool field: the typed API and the other vocabularies
    cols: int = 80
    rows: int = 24


def _typed(call: dict[str, Any], name: str) -> Any:
    value = call.get(name)
    if value is None:
        return None
    expected = FIELDS[name]
    if isinstance(value, bool) and expected is not bool:
        raise CallError(f"{name} must be {_type_name(expected)}, not a boolean", name)
    if not isinstance(value, expected):
        if expected is int and isinstance(value, float) and value.is_integer():
            return int(value)
        raise CallError(f"{name} must be {_type_name(expected)}, not {type(value).__name__}", name)
    return value


def _type_name(expected: Any) -> str:
    return {str: "a string", bool: "true or false", int: "a whole number"}.get(expected, "valid")


def validate(call: Any, *, session_cwd: str | None = None) -> JobCall:
    if not isinstance(call, dict):
        raise CallError("a job call must be an object with an 'action' field", "action")
    unknown = sorted(str(k) for k in call if k not in FIELDS)
    if unknown:
        raise CallError(f"unknown field {unknown[0]!r}", unknown[0])
    action = _typed(call, "action")
    if action is None:
        raise CallError("action is required: one of " + ", ".join(ACTIONS), "action")
    if action not in ACTIONS:
        raise CallError(f"action {action!r} is not one of " + ", ".join(ACTIONS), "action")
    for name in call:
        if name != "action" and call[name] is not None and name not in APPLIES[action]:
            raise CallError(f"{name} does not apply to action {action!r}", name)
    values = {name: _typed(call, name) for name in APPLIES[action]}
    job_id = values.get("id")
    if job_id is not None and not is_job_id(job_id):
        raise CallError(f"id {job_id!r} is not a job id like 'j1'", "id")
    if action in NEEDS_ID and job_id is None:
        raise CallError(f"id is required for action {action!r}", "id")
    return _BUILDERS[action](values, session_cwd)


def _start(v: dict[str, Any], session_cwd: str | None) -> JobCall:
    command = v.get("command")
    if command is None or not command.strip():
        raise CallError("command is required and must not be empty", "command")
    if len(command) > MAX_COMMAND:
        raise CallError(
            f"command is {len(command)} characters; the limit is {MAX_COMMAND}", "command"
        )
    if "\x00" in command:
        raise CallError("command must not contain a NUL character", "command")
    cwd = v.get("cwd")
    if cwd is not None:
        if not cwd or "\x00" in cwd:
            raise CallError("cwd must be a directory path", "cwd")
        base = session_cwd or os.getcwd()
        cwd = os.path.normpath(os.path.join(base, os.path.expanduser(cwd)))
        if not os.path.isdir(cwd):
            raise CallError(f"cwd {cwd!r} is not an existing directory", "cwd")
    timeout = v.get("timeoutMs")
    if timeout is not None and not 1 <= timeout <= MAX_START_TIMEOUT_MS:
        raise CallError(
            f"timeoutMs {timeout} is outside 1-{MAX_START_TIMEOUT_MS} (1 ms to 24 h)", "timeoutMs"
        )
    label = v.get("label")
    if label is not None and len(label) > MAX_LABEL:
        raise CallError(f"label is {len(label)} characters; the limit is {MAX_LABEL}", "label")
    return JobCall(
        action="start",
        command=command,
        cwd=cwd,
        label=label,
        wake=v.get("wake"),
        detached=v.get("detached"),
        stdin=bool(v.get("stdin")),
        timeout_ms=timeout,
    )


def _logs(v: dict[str, Any], _cwd: str | None) -> JobCall:
    lines = v.get("lines")
    if lines is not None and not 1 <= lines <= MAX_LINES:
        raise CallError(f"lines {lines} is outside 1-{MAX_LINES}", "lines")
    return JobCall(action="logs", id=v["id"], lines=lines)


def _send(v: dict[str, Any], _cwd: str | None) -> JobCall:
    text = v.get("input")
    eof = bool(v.get("eof"))
    if text is None and not eof:
        raise CallError("input is required unless eof is true", "input")
    if text is not None and len(text) > MAX_INPUT:
        raise CallError(f"input is {len(text)} characters; the limit is {MAX_INPUT}", "input")
    newline = v.get("newline")
    return JobCall(
        action="send", id=v["id"], input=text, newline=True if newline is None else newline, eof=eof
    )


def _kill(v: dict[str, Any], _cwd: str | None) -> JobCall:
    sig = v.get("signal")
    if sig is None:
        sig = "SIGTERM"
    if sig not in KILL_SIGNALS:
        raise CallError(f"signal {sig!r} is not one of " + ", ".join(KILL_SIGNALS), "signal")
    return JobCall(action="kill", id=v["id"], signal=sig)


def _wait(v: dict[str, Any], _cwd: str | None) -> JobCall:
    timeout = v.get("timeoutMs")
    if timeout is not None and not 0 <= timeout <= MAX_WAIT_MS:
        raise CallError(f"timeoutMs {timeout} is outside 0-{MAX_WAIT_MS} for wait", "timeoutMs")
    return JobCall(
        action="wait", id=v["id"], timeout_ms=DEFAULT_WAIT_MS if timeout is None else timeout
    )


def _simple(action: str):
    def build(v: dict[str, Any], _cwd: str | None) -> JobCall:
        return JobCall(action=action, id=v.get("id"), all=bool(v.get("all")))

    return build


_BUILDERS = {
    "start": _start,
    "list": _simple("list"),
    "status": _simple("status"),
    "logs": _logs,
    "send": _send,
    "kill": _kill,
    "wait": _wait,
    "clear": _simple("clear"),
}


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a `job` call, for agent hosts that register the tool."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "job",
        "description": (
            "Run shell commands as background jobs: start returns an id at once; "
            "list, status, logs, send, kill, wait and clear act on jobs."
        ),
        "type": "object",
        "additionalProperties": False,
        "required": ["action"],
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "command": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_COMMAND,
                "description": "Shell command to run (start).",
            },
            "cwd": {"type": "string", "description": "Working directory (start)."},
            "label": {
                "type": "string",
                "maxLength": MAX_LABEL,
                "description": "Short display label (start).",
            },
            "wake": {"type": "boolean", "description": "Report the finish proactively (start)."},
            "detached": {
                "type": "boolean",
                "description": "Leave it running when the session ends (start).",
            },
            "stdin": {"type": "boolean", "description": "Give the job a stdin pipe (start)."},
            "id": {"type": "string", "pattern": "^j[1-9][0-9]{0,8}$", "description": "Job id."},
            "lines": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LINES,
                "description": "Log lines to return (logs).",
            },
            "input": {
                "type": "string",
                "maxLength": MAX_INPUT,
                "description": "Text for the job's stdin (send).",
            },
            "newline": {"type": "boolean", "description": "Append a newline (send; default true)."},
            "eof": {
                "type": "boolean",
                "description": "Close the job's stdin after writing (send).",
            },
            "signal": {"type": "string", "enum": list(KILL_SIGNALS)},
            "timeoutMs": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_START_TIMEOUT_MS,
                "description": "start: deadline (1 ms-24 h). wait: how long to block "
                "(default 30 s, at most 600 s).",
            },
            "all": {"type": "boolean", "description": "clear: also kill and remove running jobs."},
        },
    }
