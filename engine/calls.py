"""Validation of `job` tool calls: pure, complete, and before any side effect.

`validate` holds an untrusted dict to the `job` JSON Schema (`callschema.JOB`, the one
hosts register: every rule, the cross-field ones included, lives there), builds the
typed `JobCall`, and adds the one fact no schema can know: whether a start's `cwd` is a
directory. Errors are `CallError`s whose message names the offending field.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .callschema import DEFAULT_WAIT_MS, JOB
from .schemacheck import ToolInputError, check, quote


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


def validate(call: Any, *, session_cwd: str | None = None) -> JobCall:
    if not isinstance(call, dict):
        raise CallError("a job call must be an object with an 'action' field", "action")
    try:
        v = check(JOB, call, "job")
    except ToolInputError as exc:
        raise CallError(str(exc), exc.field) from None
    action = v["action"]
    if action == "start":
        return JobCall(
            action="start",
            command=v["command"],
            cwd=_directory(v.get("cwd"), session_cwd),
            label=v.get("label"),
            wake=v.get("wake"),
            detached=v.get("detached"),
            stdin=v.get("stdin", False),
            timeout_ms=v.get("timeoutMs"),
        )
    if action == "wait":
        return JobCall(action="wait", id=v["id"], timeout_ms=v.get("timeoutMs", DEFAULT_WAIT_MS))
    return JobCall(
        action=action,
        id=v.get("id"),
        lines=v.get("lines"),
        input=v.get("input"),
        newline=v.get("newline", True),
        eof=v.get("eof", False),
        signal=v.get("signal", "SIGTERM"),
        all=v.get("all", False),
    )


def _directory(cwd: str | None, session_cwd: str | None) -> str | None:
    """A start's `cwd`, absolute (relative to the session's), which must be a directory."""
    if cwd is None:
        return None
    base = session_cwd or os.getcwd()
    path = os.path.normpath(os.path.join(base, os.path.expanduser(cwd)))
    if not os.path.isdir(path):
        raise CallError(f"cwd {quote(path)} is not an existing directory", "cwd")
    return path
