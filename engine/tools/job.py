"""The reference `job` tool: one dict in, one JSON-ready JobDetails dict out."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..calls import CallError, JobCall, validate

if TYPE_CHECKING:
    from ..manager import JobManager


def _error(action: Any, message: str, **extra: Any) -> dict[str, Any]:
    return {"action": action if isinstance(action, str) else None, "error": message, **extra}


async def run_call(manager: JobManager, request: Any) -> dict[str, Any]:
    from ..results import JobError

    action = request.get("action") if isinstance(request, dict) else None
    try:
        call = validate(request, session_cwd=manager.cwd)
    except CallError as exc:
        return _error(action, str(exc))
    try:
        return await dispatch(manager, call)
    except JobError as exc:
        details = _error(call.action, str(exc))
        record = manager.registry.get(call.id) if call.id else None
        if record is not None:
            details["job"] = record.to_json()
        return details


async def dispatch(manager: JobManager, call: JobCall) -> dict[str, Any]:
    """Run a validated call; raises JobError (UnknownJob, Refused) instead of folding it in."""
    action = call.action
    if action == "start":
        record = await manager._start(call)
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
        record = await manager.status(call.id or "")
        return {"action": action, "job": record.to_json(), "sessionId": manager.session_id}
    if action == "logs":
        result = await manager._logs(call)
        details: dict[str, Any] = {
            "action": action,
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
    if action == "send":
        sent = await manager._send(call)
        return {
            "action": action,
            "job": sent["job"].to_json(),
            "sent": sent["sent"],
            "stdinClosed": sent["stdinClosed"],
        }
    if action == "kill":
        result = await manager.kill(call.id or "", call.signal)
        details = {
            "action": action,
            "job": result.job.to_json(),
            "signalled": result.signalled,
            "signal": call.signal,
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
    if action == "wait":
        return await _wait(manager, call)
    cleared = await manager.clear(call.id, all=call.all)
    return {"action": action, "jobs": [r.to_json() for r in cleared], "cleared": len(cleared)}


async def _wait(manager: JobManager, call: JobCall) -> dict[str, Any]:
    job_id = call.id or ""
    manager.get(job_id)
    try:
        record = await manager.wait(job_id, call.timeout_ms or 0)
    except asyncio.CancelledError:
        record = manager.get(job_id)
        return {"action": "wait", "job": record.to_json(), "cancelled": True, "timedOut": False}
    return {"action": "wait", "job": record.to_json(), "timedOut": record.running}
