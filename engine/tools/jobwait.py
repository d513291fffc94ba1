"""The `job` tool's `wait` action: one job, several, or (neither `id` nor `ids`) the next
finish of the session's jobs; for its end, a line (`until`), a listening TCP port
(`port`) or declared jobs' readiness (`ready`: reason `ready`, or `not-ready` when a
probe gave up at its limit), at most `timeoutMs`.

The next finish is the oldest one not yet reported (a job that ended while the model was
busy, which no wait, status or hook has told of: `seen` is false), else the first of
the running jobs to end; each finish is so reported once.

A wait with no id and nothing running answers at once (`reason: "none-running"`): a model
that asks "tell me when the next one finishes" when none runs must not sit out its
timeout. A cancelled wait returns what it knows; the jobs keep running either way.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.calls.callschema import MAX_WAIT_IDS

if TYPE_CHECKING:
    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.engine.session.manager import JobManager
    from jobs_tui.engine.session.waiting import ScreenScanner, WaitResult

    from .job import JobCall

NONE_RUNNING = "none-running"


async def wait(
    manager: JobManager, call: JobCall, screen_scanner: ScreenScanner | None = None
) -> dict[str, Any]:
    if call.id is None and call.ids is None:
        return await _wait_next(manager, call, screen_scanner)
    many = call.ids is not None or call.until is not None or call.mode is not None
    if many or call.port or call.ready:
        return await _wait_many(manager, call, screen_scanner)
    job_id = call.id or ""
    manager.get(job_id)
    try:
        record = await manager.wait(job_id, call.timeout_ms or 0)
    except asyncio.CancelledError:
        record = manager.get(job_id)
        return {"action": "wait", "job": record.to_json(), "cancelled": True, "timedOut": False}
    reason = "timeout" if record.running else "finished"
    return {"action": "wait", "job": record.to_json(), "timedOut": record.running, "reason": reason}


async def _wait_many(
    manager: JobManager, call: JobCall, screen_scanner: ScreenScanner | None = None
) -> dict[str, Any]:
    ids = list(call.ids) if call.ids is not None else [call.id or ""]
    for job_id in ids:
        manager.get(job_id)
    try:
        result = await _many(manager, call, ids, call.mode, screen_scanner)
    except asyncio.CancelledError:
        jobs = [manager.get(job_id) for job_id in ids]
        details = {"action": "wait", "cancelled": True, "timedOut": False}
        return details | _jobs_of(call, jobs)
    return _details(result, call) | _jobs_of(call, result.jobs)


async def _wait_next(
    manager: JobManager, call: JobCall, screen_scanner: ScreenScanner | None = None
) -> dict[str, Any]:
    """The session's next finish: one not yet reported (seen) at once, the oldest first,
    else the first of its running jobs to end (or match, or listen): that job."""
    if call.until is None and call.port is None:
        pending = sorted(manager.pending_reports(), key=lambda r: (r.ended_at(), r.number))
        if pending:
            manager.mark_seen(pending[0].id)
            return {"action": "wait", "timedOut": False, "reason": "finished"} | {
                "job": pending[0].to_json()
            }
    running = [r.id for r in await manager.list() if r.running and manager.is_own(r)]
    if not running:
        return {"action": "wait", "timedOut": False, "reason": NONE_RUNNING}
    ids = running[:MAX_WAIT_IDS]  # newest first: a session with more waits on its newest
    try:
        result = await _many(manager, call, ids, "any", screen_scanner)
    except asyncio.CancelledError:
        jobs = [manager.get(job_id) for job_id in ids]
        return {"action": "wait", "cancelled": True, "timedOut": False} | _all(jobs)
    about = _about(result)
    details = _details(result, call)
    return details | ({"job": about.to_json()} if about is not None else _all(result.jobs))


async def _many(
    manager: JobManager,
    call: JobCall,
    ids: list[str],
    mode: str | None,
    screen_scanner: ScreenScanner | None,
) -> WaitResult:
    return await manager.wait_many(
        ids,
        mode="any" if mode == "any" else "all",
        until=call.until,
        from_start=call.from_start,
        timeout_ms=call.timeout_ms or 0,
        screen_scanner=screen_scanner,
        port=call.port,
        ready=call.ready,
    )


def _details(result: WaitResult, call: JobCall) -> dict[str, Any]:
    details: dict[str, Any] = {
        "action": "wait",
        "timedOut": result.timed_out,
        "reason": result.reason,
    }
    if result.match is not None:
        match = result.match
        details["match"] = {"id": match.job_id, "line": match.line, "offset": match.offset}
    if result.listening is not None:
        details["listening"] = {"id": result.listening, "port": call.port}
    return details


def _about(result: WaitResult) -> JobRecord | None:
    """The job a wait on the next finish is about: the one that matched, listens, or
    ended first (ties: the newest); None on a timeout."""
    jobs = result.jobs
    which = result.match.job_id if result.match is not None else result.listening
    if which is not None:
        return next((r for r in jobs if r.id == which), None)
    ended = [(r.finished_at or 0, at, r) for at, r in enumerate(jobs) if not r.running]
    return min(ended, key=lambda e: e[:2])[2] if ended else None


def _all(jobs: list[JobRecord]) -> dict[str, Any]:
    return {"jobs": [r.to_json() for r in jobs]}


def _jobs_of(call: JobCall, jobs: list[JobRecord]) -> dict[str, Any]:
    """`job` for a wait on `id`, `jobs` for one on `ids`."""
    if call.ids is None:
        return {"job": jobs[0].to_json()}
    return _all(jobs)
