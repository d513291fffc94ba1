"""Supervision: starting a job's shim, attaching to it, and what to do when it is gone.

Mixed into JobManager. A job is recorded before its shim is launched, so whatever happens
to the caller a job is never one nobody knows of; a record without pids is reattached
through its socket (the shim's state carries them) or, once the launch window is over,
settled as unknown. A dead shim took the job's group leader with it; the rest of the
tree is swept by the job's marker.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import TYPE_CHECKING, Any

from . import procs, reservations
from .calls import JobCall
from .exitfiles import ExitInfo, read_exit
from .launch import LaunchError, launch
from .link import LinkClosed, ShimLink
from .model import EndReason, JobRecord, now_ms
from .reconcile import Facts, Plan, launching, plan
from .results import JobError

if TYPE_CHECKING:
    from .manager import JobManager

RECONCILE_S = 1.0
SHIM_GONE = "shim-gone"  # end reason: the supervisor died, and the job's tree with it


class SupervisionMixin:
    """The process side of JobManager: launch, attach, reconcile, settle-gone."""

    async def _reconcile_loop(self: JobManager) -> None:
        while True:
            await asyncio.sleep(RECONCILE_S)
            try:
                self.registry.refresh_peers(now_ms(), force=True)
                await self._reconcile_own()
            except OSError:
                pass
            except Exception as exc:  # one bad pass must not end the loop for good
                self.registry.report(f"reconcile: {type(exc).__name__}: {str(exc)[:200]}")
            self._persist_if_dirty()  # also retries a write a full disk refused

    async def _drop_lost_links(self: JobManager) -> None:
        """Let go of jobs another process took over or cleared: no settle, no kill."""
        for job_id in self.registry.take_lost():
            link = self._links.pop(job_id, None)
            event = self._finished.pop(job_id, None)
            if link is not None:
                await link.close()
            if event is not None:
                event.set()  # a waiter on it goes back to polling the record

    async def _reconcile_own(self: JobManager) -> None:
        """Own running records without a live link: settle, reattach, or kill as orphans."""
        await self._drop_lost_links()
        adopted = {r.id for r in self.registry.take_adopted()}
        for record in self.registry.own_running():
            if record.id in self._links or record.id in self._launching:
                continue
            if record.pid is None and record.shim_pid is None:
                lazy = not self._attach_all and record.id not in adopted
                if lazy and launching(record, now_ms()):
                    continue  # the call starting it fills its pids in
                await self._reconcile_launching(record, record.id in adopted)
                continue
            info = read_exit(self.paths, record.id, record.status_path)
            alive = procs.same_process(record.pid, record.start_token) or procs.same_process(
                record.shim_pid, record.shim_token
            )
            facts = Facts(alive, info is not None, own=True, adopted=record.id in adopted)
            action = plan(record, facts)
            if action is Plan.SETTLE:
                self._settle_gone(record)
            elif action is Plan.KILL_ORPHAN:
                await self._kill_orphan(record)
            elif action is Plan.REATTACH and self._attach_all:
                await self._attach(record)  # else (attach=False): when something needs it

    async def _link_for(self: JobManager, record: JobRecord) -> ShimLink | None:
        """The job's shim link; a session opened with attach=False attaches to it now."""
        link = self._links.get(record.id)
        if link is None and not self._attach_all and record.running and self.is_own(record):
            await self._attach(record)
            link = self._links.get(record.id)
        return link

    async def _reconcile_launching(self: JobManager, record: JobRecord, adopted: bool) -> None:
        """A record written before its shim reported ready (its caller died, or is slow).

        Its shim, if any, answers on the job's socket with the pids; a non-detached job of
        a dead owner is then killed as an orphan (its shim kills it too). No answer after
        the launch window: it never started, or its shim died; sweep and settle unknown.
        """
        listening = self.paths.socket(record.id).exists()
        if not listening and read_exit(self.paths, record.id, record.status_path) is None:
            if adopted and not record.detached:
                # Its owner is dead: a shim still on its way finds that out before it
                # spawns anything (or kills what it spawned): it never runs.
                procs.sweep(self._marker(record.id))
                self.settle(record, None)
                return
            if launching(record, now_ms()):
                return  # not listening yet
        if not await self._attach(record):
            return
        if adopted and not record.detached and record.running:
            await self._kill_orphan(record)

    async def _kill_orphan(self: JobManager, record: JobRecord) -> None:
        if await self._attach(record) and record.running:
            link = self._links[record.id]
            with contextlib.suppress(LinkClosed, TimeoutError):
                await link.request({"op": "kill", "signal": "SIGTERM", "reason": "owner-gone"})
            return
        marker = self._marker(record.id)
        if record.running and procs.kill_group_checked(record.pid, record.start_token, 9, marker):
            self.settle(record, ExitInfo(-9, EndReason.OWNER_GONE.value, "SIGKILL", now_ms()))

    def _settle_gone(self: JobManager, record: JobRecord) -> None:
        """The shim is gone: settle from its files, else sweep what is left and say so.

        A shim that is still alive (a connect that failed under load, a link it dropped)
        is not gone: the reconcile loop attaches to it again. A dead one took the job's
        group leader with it (its death signal); the rest of the tree is found by the
        job's marker and killed, so nothing of a job outlives its supervisor.
        """
        info = read_exit(self.paths, record.id, record.status_path)
        if info is None and record.pid is None and record.shim_pid is None:
            if record.id in self._launching or launching(record, now_ms()):
                return  # recorded before its shim reported ready: give it the launch window
            procs.sweep(self._marker(record.id))
            self.settle(record, None)
            return
        if record.shim_pid is None:  # a supervisor-less job (another tool's)
            if info is None and procs.same_process(record.pid, record.start_token):
                return  # polled until its pid is gone
            self.settle(record, info)
            return
        if procs.same_process(record.shim_pid, record.shim_token):
            if info is not None:
                self.settle(record, info)
            return
        swept = procs.sweep(self._marker(record.id))
        if info is None and (procs.LINUX or swept):
            info = ExitInfo(-9, SHIM_GONE, "SIGKILL", now_ms())
        self.settle(record, info)

    def _marker(self: JobManager, job_id: str) -> str:
        return procs.job_marker(self.paths.root, job_id)

    async def _launch(
        self: JobManager, record: JobRecord, call: JobCall, env: dict[str, str] | None
    ) -> JobRecord:
        """Record the job, start its shim, fill in its pids, attach to it."""
        job_id = record.id
        owner = None if (record.detached or self.persistent) else os.getpid()
        spec = {
            "id": job_id,
            "command": record.command,
            "cwd": record.cwd,
            "log": record.log_path,
            "previous": record.log_path + ".1",
            "status": record.status_path,
            "end": str(self.paths.end(job_id)),
            "socket": str(self.paths.socket(job_id)),
            "maxLogBytes": self.config.max_log_bytes,
            "killGraceMs": self.config.kill_grace_ms,
            "timeoutMs": call.timeout_ms,
            "stdin": call.stdin,
            "tty": call.tty,
            "cols": call.cols,
            "rows": call.rows,
            "ownerPid": owner,
            "ownerToken": procs.start_token(owner) if owner else None,
            "marker": self._marker(job_id),
        }
        # The record first: whatever happens to this process from here on, the job is
        # never one nobody knows of (a record without a pid is reattached by its socket).
        self.registry.add(record)
        try:
            self.registry.persist()
        except OSError as exc:
            self._forget(job_id)
            raise JobError(f"could not record the job: {exc.strerror or exc}", "command") from exc
        self._launching.add(job_id)
        try:
            ready = await asyncio.to_thread(launch, spec, env=env)
        except (LaunchError, OSError) as exc:
            procs.sweep(spec["marker"])  # a shim that answered too late must not leave a job
            self._forget(job_id)
            raise JobError(str(exc), "command") from exc
        finally:
            self._launching.discard(job_id)
        self._identify(record, ready)
        self._persist()
        reservations.release(self.paths, job_id)
        self._publish("job-started", record)
        await self._attach(record)
        return record

    def _forget(self: JobManager, job_id: str) -> None:
        """A start that failed: no record, no files, no reservation."""
        with contextlib.suppress(OSError):
            self.registry.remove([job_id])
        reservations.release(self.paths, job_id)

    def _identify(self: JobManager, record: JobRecord, ready: dict[str, Any]) -> bool:
        """Fill a record's pids and start tokens from the shim's ready line or state."""
        if record.pid is not None or not isinstance(ready.get("pid"), int):
            return False
        record.pid = ready["pid"]
        for attr, key in (("start_token", "startToken"), ("shim_token", "shimToken")):
            value = ready.get(key)
            setattr(record, attr, value if isinstance(value, str) else None)
        shim_pid = ready.get("shimPid")
        record.shim_pid = shim_pid if isinstance(shim_pid, int) else None
        self.registry.mark_dirty()
        return True

    async def _attach(self: JobManager, record: JobRecord) -> bool:
        """Connect to the job's shim for events and control; settle it if it is gone.

        One link per job: a second attach while one is under way (a start's own and the
        reconcile loop's) waits for the first instead of opening another.
        """
        if record.id in self._links:
            return True
        pending = self._attaching.get(record.id)
        if pending is not None:
            return await asyncio.shield(pending)
        attempt = asyncio.get_running_loop().create_task(self._connect(record))
        self._attaching[record.id] = attempt
        try:
            return await asyncio.shield(attempt)
        except asyncio.CancelledError:
            if not attempt.done():  # a closing session: no half-made link survives it
                attempt.cancel()
                with contextlib.suppress(BaseException):
                    await attempt
            raise
        finally:
            if self._attaching.get(record.id) is attempt and attempt.done():
                del self._attaching[record.id]

    async def _connect(self: JobManager, record: JobRecord) -> bool:
        link = ShimLink(record.id, self._on_shim_event, self._on_link_closed)
        self._finished.setdefault(record.id, asyncio.Event())
        try:
            state = await link.connect(str(self.paths.socket(record.id)))
        except (OSError, LinkClosed, TimeoutError):
            await link.close()
            self._settle_gone(record)
            return False
        except BaseException:  # cancelled (a closing session): no read loop left behind
            await link.close()
            raise
        self._links[record.id] = link
        self._identify(record, state)  # a record written before its shim reported ready
        self._apply_output(record, state)
        if state.get("running") is False:
            self._settle_from_message(record, state)
        return True
