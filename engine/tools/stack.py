"""The `job` tool's `up` and `down`: the project's declared jobs, as `jobs-tui up --detach`
and `jobs-tui down` bring them up and down.

The file is the one at the project root of the session's cwd (`jobs-tui.toml`, else a
process-compose.yaml, mprocs.yaml or Procfile), read and validated whole before anything
starts: an invalid file is an error with every problem in `errors`, a name it does not
declare an error naming `names`, and nothing is started or stopped. `up` returns once
each job's supervisor runs (each waits for its dependencies, probes and restarts its job
with or without this session); `job_wait` with `ready: true` waits for the probes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jobs_tui.engine.declared import (
    DeclaredFileError,
    NoDeclaredFile,
    Stack,
    UnknownDeclared,
    load_stack,
)
from jobs_tui.engine.records.results import InvalidArgument, JobError

if TYPE_CHECKING:
    from jobs_tui.engine.records.results import KillResult
    from jobs_tui.engine.session.manager import JobManager

    from .job import JobCall


class DeclaredFileProblem(InvalidArgument):
    """The declared file cannot be used; `errors` holds every problem of it."""

    def __init__(self, message: str, errors: list[str], warnings: list[str]) -> None:
        super().__init__(message, "names")
        self.errors = errors
        self.warnings = warnings


def project_stack(manager: JobManager, *, required: bool) -> Stack | None:
    """The session's project's declared jobs (None: no file, and none `required`)."""
    try:
        return load_stack(None, cwd=manager.cwd)
    except NoDeclaredFile as exc:
        if required:
            raise JobError(str(exc), "names") from None
        return None
    except DeclaredFileError as exc:
        first, more = exc.errors[0], len(exc.errors) - 1
        message = first if not more else f"{first} (and {more} more)"
        raise DeclaredFileProblem(message, list(exc.errors), list(exc.warnings)) from None


def _names(stack: Stack | None, call: JobCall) -> list[str] | None:
    names = list(call.names) if call.names is not None else None
    if stack is not None and names is not None:
        try:
            stack.closure(names)
        except UnknownDeclared as exc:
            raise InvalidArgument(str(exc), "names") from None
    return names


async def up(manager: JobManager, call: JobCall) -> dict[str, Any]:
    stack = project_stack(manager, required=True)
    assert stack is not None
    result = await manager.up(stack, _names(stack, call), detached=call.detached)
    details: dict[str, Any] = {
        "action": "up",
        "started": [r.to_json() for r in result.started],
        "running": [r.to_json() for r in result.running],
        "failed": [{"name": name, "error": why} for name, why in result.failed],
        "levels": stack.levels(),
    }
    if stack.warnings:
        details["warnings"] = list(stack.warnings)
    return details


async def down(manager: JobManager, call: JobCall) -> dict[str, Any]:
    stack = project_stack(manager, required=False)
    names = _names(stack, call)
    result = await manager.down(stack, names)
    not_running = list(result.not_running)
    if stack is None and names is not None:  # no file: a name with no running job is said
        stopped = {k.job.declared_name for k in result.stopped}
        not_running += [n for n in names if n not in stopped and n not in not_running]
    for kill in result.stopped:
        if not kill.job.running:  # the result shows its end: that is its report
            manager.mark_seen(kill.job.id)
    return {
        "action": "down",
        "stopped": [_stopped(kill) for kill in result.stopped],
        "notRunning": not_running,
    }


def _stopped(kill: KillResult) -> dict[str, Any]:
    item: dict[str, Any] = {
        "job": kill.job.to_json(),
        "signal": kill.signal,
        "escalated": bool(kill.escalated),
    }
    if kill.note:
        item["note"] = kill.note
    return item
