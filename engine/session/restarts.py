"""Restarting a job: the same command, cwd, label, environment, stdin/tty, deadline, detached.

The registry holds everything a restart needs except the values of the job's extra
environment (secrets, often) and a terminal's size: those are kept in `<id>.env`
(`RegistryPaths.env`), 0600 in the 0700 registry directory, written before the job's
shim starts and removed with the record. The registry JSON holds only the names
(`envNames`); no value is ever put on a command line.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.calls.arguments import check, resolve_cwd
from jobs_tui.engine.records.model import now_ms
from jobs_tui.engine.records.results import InvalidArgument, JobError, Refused
from jobs_tui.engine.registry import regfiles, reservations
from jobs_tui.engine.registry.safefiles import check_stat, read_regular

from . import launch, starting
from .declaring import restart_rules
from .launch import LaunchError

if TYPE_CHECKING:
    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.engine.registry.paths import RegistryPaths
    from jobs_tui.engine.shim.protocol import Ready, StartSpec

    from .parts import RestartSession

ENV_FILE_LIMIT = 4 * 1024 * 1024
KEEP_LAUNCHING_S = 5.0  # well within reconcile.LAUNCH_WINDOW_MS (15 s)


@dataclass(frozen=True)
class Saved:
    """What a restart takes from the job's `.env` file."""

    env: dict[str, str]
    cols: int = 80
    rows: int = 24
    declared: dict[str, Any] | None = None  # a declared job's rules (shim's DeclaredSpec)


def save(
    paths: RegistryPaths,
    job_id: str,
    env: dict[str, str] | None,
    cols: int,
    rows: int,
    declared: dict[str, Any] | None = None,
) -> None:
    """Write the job's env file (0600, never following a planted link); raises OSError."""
    kept: dict[str, Any] = {"env": env or {}, "cols": cols, "rows": rows}
    if declared is not None:
        kept["declared"] = declared
    data = json.dumps(kept).encode()  # \\udcXX kept
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK
    fd = regfiles.open_file(paths.env(job_id), flags)  # by name in the held directory
    try:
        check_stat(os.fstat(fd))  # a planted FIFO or another user's file: refused
        os.fchmod(fd, 0o600)
        os.write(fd, data)
    finally:
        os.close(fd)


def keep(
    paths: RegistryPaths,
    job_id: str,
    env: dict[str, str] | None,
    cols: int,
    rows: int,
    declared: dict[str, Any] | None = None,
) -> None:
    """`save` for a start: on failure its id is released and JobError names `env`."""
    try:
        save(paths, job_id, env, cols, rows, declared)
    except OSError as exc:
        reservations.release(paths, job_id)
        message = f"could not keep its environment: {exc.strerror or exc}"
        raise JobError(message, "env") from exc


def load(paths: RegistryPaths, record: JobRecord) -> Saved:
    """The job's saved environment and size; JobError when its values are gone or unreadable.

    A job started without extra environment (and not on a terminal) may have no file.
    """
    try:
        data = json.loads(read_regular(paths.env(record.id), ENV_FILE_LIMIT))
    except FileNotFoundError:
        if record.env_names:
            raise JobError(
                f"{record.id}: the values of its environment ({', '.join(record.env_names)}) "
                "are gone; not restarted",
                "id",
            ) from None
        return Saved({})
    except (OSError, ValueError) as exc:
        message = f"{record.id}: its saved environment is unreadable ({exc}); not restarted"
        raise JobError(message, "id") from None
    env = data.get("env") if isinstance(data, dict) else None
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise JobError(f"{record.id}: its saved environment is malformed; not restarted", "id")
    cols, rows = data.get("cols"), data.get("rows")
    if not (isinstance(cols, int) and isinstance(rows, int)):
        cols, rows = 80, 24
    declared = data.get("declared")
    if record.declared_name is not None and not isinstance(declared, dict):
        raise JobError(f"{record.id}: its declaration is not kept; not restarted", "id")
    return Saved(env, cols, rows, declared if isinstance(declared, dict) else None)


async def restart(jm: RestartSession, job_id: str, supervise: bool = False) -> JobRecord:
    """See `JobManager.restart`. Everything is checked before the old job is touched.

    A running job is stopped only once its replacement is as far as it can get without
    running: its id reserved, its record and environment written, its shim started and
    waiting (`launch.spawn(hold=True)`). A full disk, a shim that cannot start, anything
    that fails before that leaves the old job running, and the error says so; the new
    command then starts at once, never beside the old one (a server's port, a lock).
    """
    check("id", job_id)
    record = jm.get(job_id)
    if record.running and not jm.is_own(record) and not supervise:
        message = f"{job_id} is another session's job; not restarted (take it over first)."
        raise Refused(message, "id")
    saved = load(jm.paths, record)
    cwd = resolve_cwd(record.cwd, jm.cwd)
    stopper = _Stopper(jm, record.id, supervise) if record.running else None
    try:
        return await starting.start(
            jm,
            record.command,
            label=record.label,
            stdin=record.stdin and not record.tty,
            timeout_ms=record.timeout_ms,
            wake=record.wake,
            detached=record.detached,
            cwd=cwd,
            tty=record.tty,
            cols=record.term_cols or saved.cols,  # the size it was resized to last
            rows=record.term_rows or saved.rows,
            env=saved.env or None,
            restart_of=record.id,
            starter=stopper.start if stopper is not None else None,
            declared=restart_rules(jm, saved.declared) if saved.declared else None,
        )
    except JobError as exc:
        if stopper is None or stopper.stopped or isinstance(exc, Refused | InvalidArgument):
            raise
        message = f"{exc}; {record.id} not restarted: it still runs"
        raise type(exc)(message, exc.field) from exc


class _Stopper:
    """The shim start of a restart: held until the old job has stopped."""

    def __init__(self, jm: RestartSession, old_id: str, supervise: bool = False) -> None:
        self.jm = jm
        self.old_id = old_id
        self.supervise = supervise  # another session's job: killed where it is
        self.stopped = False  # the old job was touched: an error after this says so

    async def start(self, record: JobRecord, spec: StartSpec, env: dict[str, str] | None) -> Ready:
        going = await asyncio.to_thread(launch.spawn, spec, env, hold=True)
        try:
            await asyncio.to_thread(going.held)
            keeping = asyncio.get_running_loop().create_task(self._keep_launching(record))
            try:
                await self._stop_old()
            finally:
                keeping.cancel()
            record.started_at = now_ms()  # when it really starts (the launch window too)
        except BaseException:
            going.cancel()
            with contextlib.suppress(LaunchError):
                await asyncio.to_thread(going.ready)
            raise
        going.go()
        try:
            return await asyncio.to_thread(going.ready)
        except LaunchError as exc:
            raise LaunchError(f"{exc} ({self.old_id} was stopped first)") from exc

    async def _keep_launching(self, record: JobRecord) -> None:
        """A kill may take its whole grace (up to a minute): the new record, pid-less,
        must not look like a launch that never came (`reconcile.launching`) to the
        other processes of this session meanwhile, so its start time moves on."""
        while True:
            await asyncio.sleep(KEEP_LAUNCHING_S)
            record.started_at = now_ms()
            self.jm.registry.mark_dirty()
            self.jm.registry.save()

    async def _stop_old(self) -> None:
        self.stopped = True
        await self.jm.kill(self.old_id, supervise=self.supervise, stop=True)
        if self.jm.get(self.old_id).running:
            self.stopped = False  # it still runs: it was not stopped, and says so below
            raise JobError(f"{self.old_id} did not stop within the grace period", "id")
