"""A session's life: open (load, settle, adopt, start the loops), the marker and heartbeat
that show it alive to its peers, and close (own jobs killed, registry written, marker gone).

`Lifecycle` owns that state (opened, closed, the marker, the background tasks); the
manager's `open`, `close` and `install_signal_handlers` call it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signal_module
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.records.model import now_ms
from jobs_tui.engine.records.results import JobError
from jobs_tui.engine.registry import regfiles, sessions
from jobs_tui.engine.registry.paths import UnsafeRegistryDir, ensure_private_dir
from jobs_tui.engine.shim.regdir import RegDir, UnsafeDirectory

if TYPE_CHECKING:
    from jobs_tui.engine.registry.table import Registry

    from .supervision import Supervisor


class Lifecycle:
    """Open, heartbeat and close of one session (see `JobManager.open` and `close`)."""

    def __init__(
        self,
        directory: Path,
        registry: Registry,
        supervisor: Supervisor,
        kill: Callable[[str], Awaitable[object]],
    ) -> None:
        self.dir = directory
        self.registry = registry
        self.paths = registry.paths
        self.session_id = registry.session_id
        self.config = registry.config
        self.persistent = registry.persistent
        self.supervisor = supervisor
        self._kill = kill  # an own job, quietly: what close does to the attached ones
        self._tasks: set[asyncio.Task[Any]] = set()
        self._terminating: asyncio.Task[None] | None = None  # a SIGTERM/SIGHUP's close
        self._opened = False
        self._closed = False
        self._marker_written = False
        self._held: RegDir | None = None  # the registry directory, open from `open` on
        if self.persistent:  # its marker matters only while it claims a dead session's file
            self.registry.before_claim = self.write_marker

    async def open(self, attach: bool) -> None:
        if self._opened:
            return
        try:
            ensure_private_dir(Path(self.dir))
            # Held for the session's life: every registry file it touches from here on
            # is reached by name in this fd (regfiles), whatever the path names later.
            self._held = regfiles.hold(self.dir)
        except (UnsafeRegistryDir, UnsafeDirectory) as exc:
            raise JobError(str(exc), "registry_dir") from exc
        self._opened = True
        self.supervisor.attach_all = attach
        # The marker first: a peer must never see our file without seeing us alive (a
        # persistent session's file says so itself: it writes its marker when it claims).
        # On a full disk neither write is fatal (reads must work); both are retried.
        if not self.persistent:
            self.write_marker()
        try:
            self.registry.load(now_ms())
        except OSError as exc:  # adopting a dead session's file needs a write: later
            self.registry.unwritable(exc)
        await self.supervisor.reconcile()
        self.registry.save_if_dirty()  # a read-only call writes nothing it did not change
        self._spawn(self._heartbeat())
        self._spawn(self.supervisor.reconcile_loop())

    def install_signal_handlers(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal_module.SIGTERM, signal_module.SIGHUP):
            loop.add_signal_handler(signum, self._on_terminate, signum)

    def _on_terminate(self, signum: int) -> None:
        async def terminate() -> None:
            with contextlib.suppress(Exception):
                await self.close(None)
            signal_module.signal(signum, signal_module.SIG_DFL)
            os.kill(os.getpid(), signum)

        self._terminating = asyncio.get_running_loop().create_task(terminate())

    async def close(self, kill_jobs: bool | None) -> None:
        if self._closed or not self._opened:
            return
        self._closed = True
        if kill_jobs is None:
            kill_jobs = not self.persistent
        if kill_jobs:
            victims = [r.id for r in self.registry.own_running() if not r.detached]
            await asyncio.gather(*(self._kill(job_id) for job_id in victims))
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)  # none left pending
        await self.supervisor.close()
        self.registry.save()
        if self._marker_written:
            sessions.remove_marker(self.paths, self.session_id)
        if not self.persistent:  # only this process wrote our file: its lock goes too
            regfiles.unlink(self.registry.lock_path)
        if self._held is not None:
            regfiles.release(self._held)
            self._held = None

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _heartbeat(self) -> None:
        interval = min(self.config.session_ttl_ms / 3, 5000) / 1000
        while True:
            await asyncio.sleep(interval)
            if self._marker_written or not self.persistent:
                self.write_marker()
            self.registry.save_if_dirty()

    def write_marker(self) -> None:
        """This session's marker, now: peers see it alive (a failed write is a problem)."""
        try:
            sessions.write_marker(self.paths, self.session_id, now_ms(), persistent=self.persistent)
            self._marker_written = True
        except OSError as exc:
            self.registry.unwritable(exc)
