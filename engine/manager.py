"""`JobManager`: the job table of one session, its shims, the one settle path, waiters, events."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import secrets
import signal as signal_module
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import procs, sessions
from .calls import CallError, JobCall, validate
from .config import Config, resolve_registry_dir
from .control import ControlMixin, check_env, check_size
from .exitfiles import ExitInfo
from .link import LinkClosed, ShimLink
from .model import (
    EndReason,
    JobEvent,
    JobRecord,
    JobStatus,
    now_ms,
    outcome,
    valid_exit_status,
)
from .paths import RegistryPaths, UnsafeRegistryDir, ensure_private_dir
from .reading import ReadingMixin
from .registry import Registry
from .results import JobError, Refused, UnknownJob
from .sanitize import last_line, sanitize_line
from .supervision import SupervisionMixin

Subscriber = Callable[[JobEvent], None]


def status_value(value: Any) -> int | None:
    """A raw exit status worth keeping: an int that is an exit code or a signal death."""
    if isinstance(value, int) and not isinstance(value, bool) and valid_exit_status(value):
        return value
    return None


WINDOWS = sys.platform == "win32"
DETACH_REFUSAL = (
    "detached jobs are not supported on Windows: start it with detached=false, "
    "run the session under WSL, or hand the work to a subagent"
)


class JobManager(SupervisionMixin, ControlMixin, ReadingMixin):
    """Start, follow, feed, wait for, kill and clear jobs; see the README for the API."""

    def __init__(
        self,
        cwd: str | os.PathLike[str] = ".",
        registry_dir: str | os.PathLike[str] | None = None,
        config: Config | None = None,
        session_id: str | None = None,
        *,
        persistent: bool = False,
        registry_dir_flag: str | None = None,
    ) -> None:
        self.cwd = os.path.abspath(os.fspath(cwd))
        self.config = config if config is not None else Config.load()
        self.dir = resolve_registry_dir(self.cwd, registry_dir, self.config, registry_dir_flag)
        self.paths = RegistryPaths(self.dir)
        self.session_id = session_id or f"jt-{secrets.token_hex(8)}"
        self.persistent = persistent
        self.registry = Registry(self.paths, self.session_id, self.config, persistent=persistent)
        self.registry.on_change = lambda: self._announce(JobEvent("registry-changed", "", "", ""))
        self.problems: list[str] = list(self.config.warnings)
        self._reported_problems: set[str] = set()
        self._links: dict[str, ShimLink] = {}
        self._finished: dict[str, asyncio.Event] = {}
        self._gone: dict[str, asyncio.Future[dict[str, Any]]] = {}  # kills awaiting the tree
        self._subscribers: list[Subscriber] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._opened = False
        self._closed = False
        self._persist_pending = False
        self._launching: set[str] = set()  # ids this process is starting right now
        self._attaching: dict[str, asyncio.Task[bool]] = {}

    # -- lifecycle ---------------------------------------------------------------
    async def __aenter__(self) -> JobManager:
        await self.open()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def open(self) -> None:
        if self._opened:
            return
        try:
            ensure_private_dir(Path(self.dir))
        except UnsafeRegistryDir as exc:
            raise JobError(str(exc), "registry_dir") from exc
        self._opened = True
        # The marker first: a peer must never see our file without seeing us alive.
        # On a full disk neither write is fatal (reads must work); both are retried.
        self._write_marker()
        try:
            self.problems += self.registry.load(now_ms())
        except OSError as exc:  # adopting a dead session's file needs a write: later
            self._note_unwritable(exc)
        await self._reconcile_own()
        self._persist_if_dirty()  # a read-only call writes nothing it did not change
        self._spawn(self._heartbeat())
        self._spawn(self._reconcile_loop())

    def install_signal_handlers(self) -> None:
        """SIGTERM / SIGHUP close the session (own jobs killed, registry written), then exit."""
        loop = asyncio.get_running_loop()
        for signum in (signal_module.SIGTERM, signal_module.SIGHUP):
            loop.add_signal_handler(signum, self._on_terminate, signum)

    def _on_terminate(self, signum: int) -> None:
        async def terminate() -> None:
            with contextlib.suppress(Exception):
                await self.close()
            signal_module.signal(signum, signal_module.SIG_DFL)
            os.kill(os.getpid(), signum)

        self._terminating = asyncio.get_running_loop().create_task(terminate())

    async def close(self, kill_jobs: bool | None = None) -> None:
        if self._closed or not self._opened:
            return
        self._closed = True
        if kill_jobs is None:
            kill_jobs = not self.persistent
        if kill_jobs:
            victims = [r.id for r in self.registry.own_running() if not r.detached]
            await asyncio.gather(*(self._kill_quietly(job_id) for job_id in victims))
        tasks = [*self._tasks, *self._attaching.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)  # none left pending
        for link in list(self._links.values()):
            await link.close()
        self._links.clear()
        self._persist()
        sessions.remove_marker(self.paths, self.session_id)
        if not self.persistent:  # only this process wrote our file: its lock goes too
            self.registry.lock_path.unlink(missing_ok=True)

    async def _kill_quietly(self, job_id: str) -> None:
        with contextlib.suppress(JobError, LinkClosed, TimeoutError):
            await self.kill(job_id, "SIGTERM")

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _heartbeat(self) -> None:
        interval = min(self.config.session_ttl_ms / 3, 5000) / 1000
        while True:
            await asyncio.sleep(interval)
            self._write_marker()
            self._persist_if_dirty()

    def _write_marker(self) -> None:
        try:
            sessions.write_marker(self.paths, self.session_id, now_ms(), persistent=self.persistent)
        except OSError as exc:
            self._note_unwritable(exc)

    # -- events ------------------------------------------------------------------
    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback` with each JobEvent; returns the unsubscribe function."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def _publish(self, kind: str, record: JobRecord) -> None:
        event = JobEvent(
            kind,
            record.id,
            record.label,
            record.status.value,
            record.exit_code,
            record.signal,
            record.last_line,
            record.log_bytes,
            record,
        )
        self._announce(event)

    def _announce(self, event: JobEvent) -> None:
        for callback in list(self._subscribers):
            with contextlib.suppress(Exception):
                callback(event)

    def _on_shim_event(self, job_id: str, message: dict[str, Any]) -> None:
        record = self.registry.get(job_id)
        if record is None:
            return
        self._apply_output(record, message)
        if message.get("ev") == "exit":
            self._settle_from_message(record, message)
        elif message.get("ev") == "output":
            self._publish("job-output", record)
        elif message.get("ev") == "gone":
            self._resolve_gone(job_id, message)

    def _resolve_gone(self, job_id: str, report: dict[str, Any]) -> None:
        waiter = self._gone.pop(job_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(report)

    def _apply_output(self, record: JobRecord, message: dict[str, Any]) -> None:
        if isinstance(message.get("bytes"), int):
            record.log_bytes = message["bytes"]
        lost = message.get("lostBytes")
        if isinstance(lost, int) and lost > record.log_lost_bytes:
            record.log_lost_bytes = lost
            self.registry.mark_dirty()
        note = message.get("logNote")
        if isinstance(note, str) and note != record.log_note:
            record.log_note = note[:80]
            self.registry.mark_dirty()
        tail = message.get("tail")
        line = last_line(tail) if isinstance(tail, str) else ""
        if line and line != record.last_line:
            record.last_line = line
            self.registry.mark_dirty()

    def _on_link_closed(self, job_id: str) -> None:
        self._links.pop(job_id, None)
        record = self.registry.get(job_id)
        if record is not None and record.running:
            self._settle_gone(record)
        self._resolve_gone(job_id, {})  # a shim exits only once its tree is gone

    # -- the one settle path -----------------------------------------------------
    def _settle_from_message(self, record: JobRecord, message: dict[str, Any]) -> None:
        info = ExitInfo(
            message.get("exitStatus"),
            message.get("reason"),
            message.get("signal"),
            message.get("finishedAt"),
        )
        self.settle(record, info)

    def _apply_exit_info(self, record: JobRecord, info: ExitInfo) -> None:
        if info.log_bytes is not None:
            record.log_bytes = info.log_bytes
        line = last_line(info.tail) if info.tail else ""
        if line:
            record.last_line = line

    def settle(self, record: JobRecord, info: ExitInfo | None) -> None:
        """Every finish goes through here: record, disk, waiters, subscribers."""
        if not record.running:
            return
        if info is None:
            status, code, sig = JobStatus.UNKNOWN, None, None
        else:
            status, code, sig = outcome(
                info.exit_status, info.reason, info.signal, procs.signal_name
            )
            record.exit_status = status_value(info.exit_status)
            self._apply_exit_info(record, info)
            record.end_reason = info.reason or EndReason.EXIT.value
            if info.note:
                self.problems.append(info.note)
        record.status, record.exit_code, record.signal = status, code, sig
        record.finished_at = (info.finished_at if info and info.finished_at else None) or now_ms()
        record.stopping_at = None
        self.registry.prune()
        self._persist()
        event = self._finished.pop(record.id, None)
        if event:
            event.set()
        self._publish("job-finished", record)

    def _persist(self) -> None:
        """Write our file now; a failure (a full disk) is retried by the heartbeat."""
        try:
            self.registry.persist()
        except OSError as exc:
            self.registry.mark_dirty()
            self._note_unwritable(exc)

    def _persist_if_dirty(self) -> None:
        try:
            self.registry.persist_if_dirty()
        except OSError as exc:
            self._note_unwritable(exc)

    def _note_unwritable(self, exc: OSError) -> None:
        problem = f"the registry directory could not be written ({exc.strerror}); retrying"
        if problem not in self.problems:
            self.problems.append(problem)

    # -- queries -----------------------------------------------------------------
    def get(self, job_id: str) -> JobRecord:
        record = self.registry.get(job_id)
        if record is None:  # started elsewhere since the last look: look now
            self.registry.refresh_peers(now_ms(), force=True)
            record = self.registry.get(job_id)
        if record is None:
            raise UnknownJob(f"id {job_id!r} is not a known job", "id")
        return record

    @property
    def pruned(self) -> int:
        """This session's finished records dropped by `max_jobs` (kept in its registry file)."""
        return self.registry.pruned

    def take_problems(self) -> list[str]:
        """Problems (quarantined files, skipped entries, refused paths) not reported yet."""
        fresh = []
        for problem in [*self.problems, *self.registry.take_problems()]:
            if problem not in self._reported_problems:
                self._reported_problems.add(problem)
                fresh.append(problem)
        return fresh

    def is_own(self, record: JobRecord) -> bool:
        return record.session_id == self.session_id

    def jobs(self, include_peers: bool = True) -> list[JobRecord]:
        """Running first (newest first), then finished (most recent first)."""
        records = [r for r in self.registry.all() if include_peers or self.is_own(r)]
        return sorted(records, key=lambda r: (not r.running, -r.ended_at(), -r.number))

    async def list(self, all: bool = False) -> list[JobRecord]:
        self.registry.refresh_peers(now_ms())
        return [r for r in self.jobs() if all or self.is_own(r) or r.running]

    async def status(self, job_id: str) -> JobRecord:
        record = self.get(job_id)
        self._mark_seen(record)
        return record

    def _mark_seen(self, record: JobRecord) -> None:
        if not record.running and self.is_own(record) and not record.seen:
            record.seen = True
            self.registry.mark_dirty()

    # -- start -------------------------------------------------------------------
    async def start(
        self,
        command: str,
        label: str | None = None,
        stdin: bool = False,
        timeout_ms: int | None = None,
        wake: bool | None = None,
        detached: bool | None = None,
        cwd: str | None = None,
        *,
        tty: bool = False,
        cols: int = 80,
        rows: int = 24,
        env: dict[str, str] | None = None,
    ) -> JobRecord:
        call = {
            "action": "start",
            "command": command,
            "label": label,
            "stdin": stdin,
            "timeoutMs": timeout_ms,
            "wake": wake,
            "detached": detached,
            "cwd": cwd,
        }
        checked = self._validate(call)
        if tty:
            check_size(cols, rows)
            checked = dataclasses.replace(checked, tty=True, cols=cols, rows=rows)
        return await self._start(checked, env=check_env(env))

    def _validate(self, call: dict[str, Any]) -> JobCall:
        try:
            return validate(call, session_cwd=self.cwd)
        except CallError as exc:
            raise JobError(str(exc), exc.field) from exc

    async def _start(self, call: JobCall, env: dict[str, str] | None = None) -> JobRecord:
        await self.open()
        detached = self.config.detached_by_default if call.detached is None else call.detached
        if detached and WINDOWS:
            if call.detached:
                raise Refused(DETACH_REFUSAL, "detached")
            detached = False
        wake = self.config.wake_on_finish if call.wake is None else call.wake
        try:
            job_id = self.registry.reserve_id(now_ms())
        except OSError as exc:  # a full disk: nothing started, nothing recorded
            raise JobError(f"could not reserve a job id: {exc.strerror or exc}", "command") from exc
        command = call.command or ""
        record = JobRecord(
            id=job_id,
            label=sanitize_line(call.label or command, 120) or job_id,
            command=command,
            cwd=call.cwd or self.cwd,
            pid=None,
            status=JobStatus.RUNNING,
            exit_code=None,
            signal=None,
            started_at=now_ms(),
            finished_at=None,
            log_path=str(self.paths.log(job_id)),
            detached=detached,
            wake=wake,
            session_id=self.session_id,
            status_path=str(self.paths.status(job_id)),
            stdin=call.stdin or call.tty,
            tty=call.tty,
            timeout_ms=call.timeout_ms,
        )
        return await self._launch(record, call, env)

    # -- control -----------------------------------------------------------------
    async def call(self, request: Any) -> dict[str, Any]:
        """The `job` tool: a JSON-ready JobDetails dict; never raises on bad input."""
        from .tools.job import run_call

        return await run_call(self, request)
