"""Starting a job on a session: its arguments checked, `detached` settled for the platform,
an id reserved, its record written and its shim launched (`JobManager.start`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.calls.arguments import check, check_env, check_size, check_start, resolve_cwd
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.results import Refused

from .newjob import kept_for_restart, new_record, reserve_id

if TYPE_CHECKING:
    from .parts import StartSession
    from .supervision import Starter

WINDOWS = sys.platform == "win32"
DETACH_REFUSAL = (
    "detached jobs are not supported on Windows: start it with detached=false, "
    "run the session under WSL, or hand the work to a subagent"
)


async def start(
    jm: StartSession,
    command: str,
    *,
    label: str | None,
    stdin: bool,
    timeout_ms: int | None,
    wake: bool | None,
    detached: bool | None,
    cwd: str | None,
    tty: bool,
    cols: int,
    rows: int,
    env: dict[str, str] | None,
    restart_of: str | None,
    starter: Starter | None = None,
    declared: dict[str, Any] | None = None,
) -> JobRecord:
    """Everything is checked before the session is opened or an id reserved. `starter`:
    how the shim is started (`Supervisor.launch`; a restart holds it, see restarts.py)."""
    timeout_ms = check_start(command, label, stdin, timeout_ms, wake, detached)
    if tty:
        check_size(cols, rows)
    check("id", restart_of)
    cwd = resolve_cwd(cwd, jm.cwd)
    env = check_env(env)
    await jm.open()
    if detached is None:
        detached = jm.config.detached_by_default
        if WINDOWS:
            detached = False
    elif detached and WINDOWS:
        raise Refused(DETACH_REFUSAL, "detached")
    job_id = reserve_id(jm.registry)
    record = new_record(
        jm.paths,
        job_id,
        jm.session_id,
        command,
        label=label,
        cwd=cwd or jm.cwd,
        detached=detached,
        wake=jm.config.wake_on_finish if wake is None else wake,
        stdin=stdin,
        tty=tty,
        timeout_ms=timeout_ms,
        env=env,
        cols=cols,
        rows=rows,
        restart_of=restart_of,
    )
    if declared is not None:
        record.declared_name = str(declared.get("name") or "") or None
        record.phase = "waiting" if declared.get("depends") else "starting"
        record.restarts = 0
        limit = declared.get("max_restarts")
        record.max_restarts = limit if isinstance(limit, int) else None
    with kept_for_restart(jm.paths, record, env, cols, rows, declared):
        return await jm.supervisor.launch(
            record, cols=cols, rows=rows, env=env, starter=starter, declared=declared
        )
