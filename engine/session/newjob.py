"""A new job's record, and its restart file around its launch: one place for the
event-loop start (`JobManager.start`) and the command line's quick one (`quickexec`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.records.model import JobRecord, JobStatus, now_ms
from jobs_tui.engine.records.results import JobError
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.engine.registry import regfiles

if TYPE_CHECKING:
    from jobs_tui.engine.registry.paths import RegistryPaths
    from jobs_tui.engine.registry.table import Registry


def reserve_id(registry: Registry) -> str:
    """A fresh job id; a full disk is a JobError naming `command` (nothing started yet)."""
    try:
        return registry.reserve_id(now_ms())
    except OSError as exc:
        raise JobError(f"could not reserve a job id: {exc.strerror or exc}", "command") from exc


def new_record(
    paths: RegistryPaths,
    job_id: str,
    session_id: str,
    command: str,
    *,
    label: str | None,
    cwd: str,
    detached: bool,
    wake: bool,
    stdin: bool,
    tty: bool,
    timeout_ms: int | None,
    env: dict[str, str] | None,
    cols: int,
    rows: int,
    restart_of: str | None = None,
) -> JobRecord:
    """The record of a job about to start: running, no pid yet."""
    return JobRecord(
        id=job_id,
        label=sanitize_line(label or command, 120) or job_id,
        command=command,
        cwd=cwd,
        pid=None,
        status=JobStatus.RUNNING,
        exit_code=None,
        signal=None,
        started_at=now_ms(),
        finished_at=None,
        log_path=str(paths.log(job_id)),
        detached=detached,
        wake=wake,
        session_id=session_id,
        status_path=str(paths.status(job_id)),
        stdin=bool(stdin or tty),
        tty=bool(tty),
        timeout_ms=timeout_ms,
        restart_of=restart_of,
        env_names=tuple(env or ()),
        term_cols=cols if tty else None,
        term_rows=rows if tty else None,
    )


@contextmanager
def kept_for_restart(
    paths: RegistryPaths,
    record: JobRecord,
    env: dict[str, str] | None,
    cols: int,
    rows: int,
    declared: dict[str, Any] | None = None,
) -> Iterator[None]:
    """Keep what a restart needs (`restarts.keep`; JobError: nothing started) around the
    launch; a launch that fails (JobError) leaves nothing kept."""
    if env or record.tty or declared is not None:
        from . import restarts

        restarts.keep(paths, record.id, env, cols, rows, declared)
    try:
        yield
    except JobError:
        regfiles.unlink(paths.env(record.id))
        raise
