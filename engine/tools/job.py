"""The reference `job` tool (seeds/002): one dict in, one JSON-ready JobDetails dict out.

An adapter over `JobManager`'s public API. `validate` holds an untrusted dict to the
`job` JSON Schema (`callschema.JOB`, the one hosts register: every rule, the cross-field
ones included, lives there) once, before any side effect, builds the typed `JobCall`,
and adds the one fact no schema can know: whether a start's `cwd` is a directory.
Errors are `CallError`s whose message names the offending field.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..arguments import resolve_cwd
from ..callschema import DEFAULT_WAIT_MS, JOB
from ..results import InvalidArgument, JobError, KillResult, LogsResult
from ..schemacheck import ToolInputError, check

if TYPE_CHECKING:
    from ..manager import JobManager


class CallError(ToolInputError):
    """A `job` call that cannot be run; the message names the field."""


@dataclass(frozen=True)
class JobCall:
    """A valid `job` call, typed."""

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


def validate(call: Any, *, session_cwd: str | None = None) -> JobCall:
    if not isinstance(call, dict):
        raise CallError("a job call must be an object with an 'action' field", "action")
    try:
        v = check(JOB, call, "job")
    except ToolInputError as exc:
        raise CallError(str(exc), exc.field) from None
    action = v["action"]
    if action == "start":
        try:
            cwd = resolve_cwd(v.get("cwd"), session_cwd)
        except InvalidArgument as exc:
            raise CallError(str(exc), exc.field) from None
        return JobCall(
            action="start",
            command=v["command"],
            cwd=cwd,
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


def _error(action: Any, message: str, **extra: Any) -> dict[str, Any]:
    return {"action": action if isinstance(action, str) else None, "error": message, **extra}


class JobTools:
    """The `job` tool over one JobManager, as ExecCommandTools and ProcessTools are theirs."""

    def __init__(self, manager: JobManager) -> None:
        self.manager = manager

    async def call(self, request: Any) -> dict[str, Any]:
        """A JSON-ready JobDetails dict; never raises on bad input."""
        return await run_call(self.manager, request)


async def run_call(manager: JobManager, request: Any) -> dict[str, Any]:
    """The `job` tool: never raises on bad input; errors come back as `error`."""
    action = request.get("action") if isinstance(request, dict) else None
    try:
        call = validate(request, session_cwd=manager.cwd)
    except CallError as exc:
        return _error(action, str(exc))
    try:
        return await dispatch(manager, call)
    except JobError as exc:
        details = _error(call.action, str(exc))
        record = manager.find(call.id) if call.id else None
        if record is not None:
            details["job"] = record.to_json()
        return details


async def dispatch(manager: JobManager, call: JobCall) -> dict[str, Any]:
    """Run a validated call; raises JobError (UnknownJob, Refused) instead of folding it in."""
    action = call.action
    job_id = call.id or ""
    if action == "start":
        record = await manager.start(
            call.command or "",
            label=call.label,
            stdin=call.stdin,
            timeout_ms=call.timeout_ms,
            wake=call.wake,
            detached=call.detached,
            cwd=call.cwd,
        )
        return {"action": action, "job": record.to_json()}
    if action == "list":
        jobs = await manager.list(all=call.all)
        return {
            "action": action,
            "jobs": [r.to_json() for r in jobs],
            "sessionId": manager.session_id,
            "problems": manager.take_problems(),  # each problem once, to whoever lists first
        }
    if action == "status":
        record = await manager.status(job_id)
        return {"action": action, "job": record.to_json(), "sessionId": manager.session_id}
    if action == "logs":
        return _logs(await manager.logs(job_id, call.lines))
    if action == "send":
        sent = await manager.send(job_id, call.input, newline=call.newline, eof=call.eof)
        return {
            "action": action,
            "job": sent["job"].to_json(),
            "sent": sent["sent"],
            "stdinClosed": sent["stdinClosed"],
        }
    if action == "kill":
        return _kill(await manager.kill(job_id, call.signal))
    if action == "wait":
        return await _wait(manager, call)
    cleared = await manager.clear(call.id, all=call.all)
    return {"action": action, "jobs": [r.to_json() for r in cleared], "cleared": len(cleared)}


def _logs(result: LogsResult) -> dict[str, Any]:
    details: dict[str, Any] = {
        "action": "logs",
        "job": result.job.to_json(),
        "logs": result.text,
        "truncated": result.truncated,
    }
    if result.truncated:
        details["earlierBytes"] = result.earlier_bytes
        if result.earlier_lines is not None:
            details["earlierLines"] = result.earlier_lines
    if result.note:
        details["note"] = result.note
    return details


def _kill(result: KillResult) -> dict[str, Any]:
    details = {
        "action": "kill",
        "job": result.job.to_json(),
        "signalled": result.signalled,
        "signal": result.signal,
        "escalated": result.escalated,
        "processes": result.processes,
    }
    if result.adopted:
        details["adopted"] = True
    if result.leftovers:
        details["leftoversKilled"] = result.leftovers
    if result.note:
        details["error"] = result.note
    return details


async def _wait(manager: JobManager, call: JobCall) -> dict[str, Any]:
    job_id = call.id or ""
    manager.get(job_id)
    try:
        record = await manager.wait(job_id, call.timeout_ms or 0)
    except asyncio.CancelledError:
        record = manager.get(job_id)
        return {"action": "wait", "job": record.to_json(), "cancelled": True, "timedOut": False}
    return {"action": "wait", "job": record.to_json(), "timedOut": record.running}
