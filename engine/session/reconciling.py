"""The reconcile of a session's own jobs: each pass settles the jobs whose shim is gone,
reattaches the ones whose link was lost, and kills a dead owner's non-detached jobs.

`Supervisor`'s half that decides from the files and the processes (registry/reconcile.py
holds the pure rules); the links, launches and attaches are supervision.py's.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from jobs_tui.engine.procs import remaining
from jobs_tui.engine.records.model import EndReason, JobRecord, now_ms
from jobs_tui.engine.registry import regfiles
from jobs_tui.engine.registry.exitfiles import ExitInfo, read_exit
from jobs_tui.engine.registry.reconcile import Facts, Plan, launching, plan
from jobs_tui.engine.shim import procs
from jobs_tui.engine.shim.protocol import OP_KILL

from .link import LinkClosed, ShimLink

if TYPE_CHECKING:
    from jobs_tui.engine.registry.paths import RegistryPaths
    from jobs_tui.engine.registry.table import Registry

    from .supervision import Settle


SHIM_GONE = "shim-gone"  # end reason: the supervisor died, and the job's tree with it


class Reconciling:
    """What `Supervisor` does with its own running records when no live link covers them."""

    registry: Registry
    paths: RegistryPaths
    attach_all: bool
    swept: dict[str, int]
    _links: dict[str, ShimLink]
    _launching: set[str]
    _settle: Settle

    if TYPE_CHECKING:

        async def attach(self, record: JobRecord) -> bool: ...

        def announce_finish(self, job_id: str) -> None: ...

        def marker(self, job_id: str) -> str: ...

    async def reconcile(self) -> None:
        """Own running records without a live link: settle, reattach, or kill as orphans."""
        await self._drop_lost_links()
        adopted = {r.id for r in self.registry.take_adopted()}
        for record in self.registry.own_running():
            if record.id in self._links or record.id in self._launching:
                continue
            info = read_exit(self.paths, record.id, record.status_path)
            if record.pid is None and record.shim_pid is None:
                # A record written before its shim reported ready. One whose exit is on
                # disk already (its starter could not write the pids: a full disk) is
                # not given the launch window: its shim, if still there, says the rest
                # (the tree it still watches); else the files settle it.
                lazy = not self.attach_all and record.id not in adopted
                if lazy and info is None and launching(record, now_ms()):
                    continue  # the call starting it fills its pids in
                await self._reconcile_launching(record, record.id in adopted)
                continue
            alive = procs.same_process(record.pid, record.start_token) or procs.same_process(
                record.shim_pid, record.shim_token
            )
            facts = Facts(alive, info is not None, own=True, adopted=record.id in adopted)
            action = plan(record, facts)
            if action is Plan.SETTLE:
                self.settle_gone(record)
            elif action is Plan.KILL_ORPHAN:
                await self._kill_orphan(record)
            elif action is Plan.REATTACH and self.attach_all:
                await self.attach(record)  # else (attach=False): when something needs it

    async def link_for(self, record: JobRecord, own: bool) -> ShimLink | None:
        """The job's shim link; a session opened with attach=False attaches to it now."""
        link = self._links.get(record.id)
        if link is None and not self.attach_all and record.running and own:
            await self.attach(record)
            link = self._links.get(record.id)
        return link

    async def _drop_lost_links(self) -> None:
        """Let go of jobs another process took over or cleared: no settle, no kill."""
        for job_id in self.registry.take_lost():
            link = self._links.pop(job_id, None)
            if link is not None:
                await link.close()
            self.announce_finish(job_id)  # a waiter on it goes back to polling the record

    async def _reconcile_launching(self, record: JobRecord, adopted: bool) -> None:
        """A record written before its shim reported ready (its caller died, or is slow).

        Its shim, if any, answers on the job's socket with the pids; a non-detached job of
        a dead owner is then killed as an orphan (its shim kills it too). No answer after
        the launch window: it never started, or its shim died; sweep and settle unknown.
        """
        listening = regfiles.exists(self.paths.socket(record.id))
        if not listening and read_exit(self.paths, record.id, record.status_path) is None:
            if adopted and not record.detached:
                # Its owner is dead: a shim still on its way finds that out before it
                # spawns anything (or kills what it spawned): it never runs.
                procs.sweep(self.marker(record.id))
                self._settle(record, None)
                return
            if launching(record, now_ms()):
                return  # not listening yet
        if not await self.attach(record):
            return
        if adopted and not record.detached and record.running:
            await self._kill_orphan(record)

    async def _kill_orphan(self, record: JobRecord) -> None:
        if await self.attach(record) and record.running:
            link = self._links[record.id]
            with contextlib.suppress(LinkClosed, TimeoutError):
                message = {"op": OP_KILL, "signal": "SIGTERM", "reason": EndReason.OWNER_GONE}
                await link.request(message)
            return
        marker = self.marker(record.id)
        if record.running and procs.kill_group_checked(record.pid, record.start_token, 9, marker):
            self._settle(record, ExitInfo(-9, EndReason.OWNER_GONE.value, "SIGKILL", now_ms()))

    def settle_gone(self, record: JobRecord) -> None:
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
            self.swept[record.id] = remaining.kill_gone_shim(self.marker(record.id), record)
            self._settle(record, None)
            return
        if record.shim_pid is None:  # a supervisor-less job (another tool's)
            if info is None and procs.same_process(record.pid, record.start_token):
                return  # polled until its pid is gone
            self._settle(record, info)
            return
        if procs.same_process(record.shim_pid, record.shim_token):
            if info is not None:
                self._settle(record, info)
            return
        swept = remaining.kill_gone_shim(self.marker(record.id), record)
        self.swept[record.id] = swept
        if info is None and (procs.LINUX or swept):
            info = ExitInfo(-9, SHIM_GONE, "SIGKILL", now_ms())
        self._settle(record, info)
