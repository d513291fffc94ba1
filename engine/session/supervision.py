"""Supervision: starting a job's shim, one link to it, and what to do when it is gone.

A job is recorded before its shim is launched, so whatever happens to the caller a job
is never one nobody knows of; a record without pids is reattached through its socket
(the shim's state carries them) or, once the launch window is over, settled as unknown.
A dead shim took the job's group leader with it; the rest of the tree is swept by the
job's marker.

`Supervisor` owns the links, the attaches and launches under way, and the waiters on a
job's finish and on its tree being gone. It settles through the callback it is given
(the manager's one settle path) and publishes through another.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.records.model import JobRecord, now_ms
from jobs_tui.engine.records.results import JobError
from jobs_tui.engine.registry import regfiles, reservations
from jobs_tui.engine.registry.exitfiles import ExitInfo, from_message
from jobs_tui.engine.shim import procs
from jobs_tui.engine.shim.protocol import (
    EV_EXIT,
    EV_GONE,
    EV_OUTPUT,
    EV_PHASE,
    EV_REMAINING,
    OP_KILL,
    OP_OWNER,
)

from .launch import LaunchError, launch, start_spec
from .link import LinkClosed, ShimLink
from .reconciling import Reconciling
from .shimnews import apply_phase, take_output

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from jobs_tui.engine.config import Config
    from jobs_tui.engine.registry.paths import RegistryPaths
    from jobs_tui.engine.registry.table import Registry
    from jobs_tui.engine.shim.protocol import GoneEvent, Ready, StartSpec

    Starter = Callable[[JobRecord, StartSpec, dict[str, str] | None], Awaitable[Ready]]

RECONCILE_S = 1.0
LAST_LINE_SAVE_S = 10.0  # a running job's new last line alone reaches the file this often
KILL_MARGIN_S = 5.0  # after the grace: SIGKILL was sent, the tree dies at once (unless in D)

Settle = Callable[[JobRecord, ExitInfo | None], None]
Publish = Callable[[str, JobRecord], None]


class Supervisor(Reconciling):
    """The process side of a session: launch, attach, reconcile, settle-gone."""

    def __init__(
        self,
        registry: Registry,
        paths: RegistryPaths,
        config: Config,
        *,
        persistent: bool,
        settle: Settle,
        publish: Publish,
    ) -> None:
        self.registry = registry
        self.paths = paths
        self.config = config
        self.persistent = persistent
        self._settle = settle
        self._publish = publish
        self._links: dict[str, ShimLink] = {}
        self._attaching: dict[str, asyncio.Task[bool]] = {}
        self._launching: set[str] = set()  # ids this process is starting right now
        self.attach_all = True  # open(attach=False): each job is attached when it is needed
        self._finished: dict[str, asyncio.Event] = {}  # set when a linked job settles
        self._gone: dict[str, asyncio.Future[GoneEvent]] = {}  # kills awaiting the tree
        self._lines_unsaved = False  # a last line changed since the registry was written
        self._lines_saved_at = 0.0
        self.swept: dict[str, int] = {}  # processes a settle of a gone shim's job killed

    # -- links -------------------------------------------------------------------
    def link(self, job_id: str) -> ShimLink | None:
        """The open link to the job's shim, if this process holds one."""
        return self._links.get(job_id)

    def linked_ids(self) -> list[str]:
        return sorted(self._links)

    def finish_event(self, job_id: str) -> asyncio.Event | None:
        """Set when the linked job settles (or is let go of); None without a link."""
        if job_id not in self._links:
            return None
        return self._finished.get(job_id)

    def announce_finish(self, job_id: str) -> None:
        """The job settled: whoever waits on its finish event wakes up."""
        event = self._finished.pop(job_id, None)
        if event is not None:
            event.set()

    async def forget(self, job_id: str) -> None:
        """A cleared job: its link closes, nobody waits on it any more."""
        link = self._links.pop(job_id, None)
        if link is not None:
            await link.close()
        self._finished.pop(job_id, None)

    async def close(self) -> None:
        """No half-made link survives a closing session; every link is closed."""
        attempts = list(self._attaching.values())
        for task in attempts:
            task.cancel()
        await asyncio.gather(*attempts, return_exceptions=True)
        for link in list(self._links.values()):
            await link.close()
        self._links.clear()

    def marker(self, job_id: str) -> str:
        return procs.job_marker(self.paths.root, job_id)

    # -- kills -------------------------------------------------------------------
    async def kill(
        self,
        record: JobRecord,
        signal: str,
        *,
        leftovers: bool = False,
        stop: bool = False,
        by: dict[str, str] | None = None,
    ) -> tuple[dict[str, Any], GoneEvent | None]:
        """Ask the shim to kill the job's tree; (its reply, its `gone` report or None).

        `leftovers`: the job finished; its shim kills what the job left behind, and the
        report is awaited only when there was something to kill. `stop`: a declared job's
        shim sends its declared stop signal instead of `signal`. `by`: who asks (door,
        session), which the shim writes in the end as `killedBy`.
        """
        link = self._links.get(record.id)
        if link is None:
            return {}, None
        gone = self._gone_waiter(record.id)
        reply: dict[str, Any] = {}
        with contextlib.suppress(LinkClosed, TimeoutError):  # it may be exiting right now
            request: dict[str, Any] = {"op": OP_KILL, "signal": signal}
            if by:
                request["by"] = by
            if stop and record.declared_name is not None:
                request["stop"] = True  # its declared stop_signal (protocol)
            reply = await link.request(request)
        if leftovers and not int(reply.get("leftovers") or 0):
            return reply, None
        grace = reply.get("graceMs")  # a declared job's own grace (and TERM step) may differ
        return reply, await self._until_gone(gone, grace if isinstance(grace, int) else None)

    def _gone_waiter(self, job_id: str) -> asyncio.Future[GoneEvent]:
        """Resolved by the shim's `gone` event (or its exit): shared by concurrent kills."""
        waiter = self._gone.get(job_id)
        if waiter is None or waiter.done():
            waiter = asyncio.get_running_loop().create_future()
            self._gone[job_id] = waiter
        return waiter

    async def _until_gone(
        self, waiter: asyncio.Future[GoneEvent], grace_ms: int | None = None
    ) -> GoneEvent | None:
        grace_ms = self.config.kill_grace_ms if grace_ms is None else grace_ms
        limit = grace_ms / 1000 + KILL_MARGIN_S
        done, _ = await asyncio.wait({waiter}, timeout=limit)  # never cancels the waiter
        return waiter.result() if done else None

    def _resolve_gone(self, job_id: str, report: GoneEvent) -> None:
        waiter = self._gone.pop(job_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(report)

    async def tell_owner(self, job_id: str, pid: int | None) -> None:
        """A taken-over job's shim watches its new owner (`pid`)."""
        link = self._links.get(job_id)
        if link is not None:
            with contextlib.suppress(LinkClosed, TimeoutError):
                token = procs.start_token(pid) if pid else None
                await link.request({"op": OP_OWNER, "pid": pid, "token": token})

    # -- what the shim says ------------------------------------------------------
    def _on_event(self, job_id: str, message: dict[str, Any]) -> None:
        kind = message.get("ev")
        record = self.registry.get(job_id)
        if record is not None:
            self._apply_output(record, message)
            if kind == EV_EXIT:
                apply_phase(record, message)  # a declared job's end: restarts, last exit
                self._settle(record, from_message(message))
            elif kind in (EV_OUTPUT, EV_REMAINING):
                self._publish("job-output", record)
            elif kind == EV_PHASE and apply_phase(record, message):
                self.registry.mark_dirty()
                self._publish("job-output", record)
        if kind == EV_GONE:
            self._resolve_gone(job_id, message)  # type: ignore[arg-type]

    def _apply_output(self, record: JobRecord, message: dict[str, Any]) -> None:
        changed, line = take_output(record, message)
        left = message.get("remaining")
        valid = isinstance(left, int) and not isinstance(left, bool) and left >= 0
        if valid and left != record.remaining_processes:
            record.remaining_processes = left
            changed = True
        if changed:
            self.registry.mark_dirty()
        if line:
            self._lines_unsaved = True  # written with the next write, or within 10 s

    def _save_lines_when_due(self, now: float) -> None:
        """A printing job changes its last line every second: the record is rewritten
        for that alone at most every LAST_LINE_SAVE_S (peers' screens read the live line
        from the log; the file's is for lists), any other change writes it at once."""
        if self.registry.dirty:
            self._lines_unsaved, self._lines_saved_at = False, now
        elif self._lines_unsaved and now - self._lines_saved_at >= LAST_LINE_SAVE_S:
            self._lines_unsaved, self._lines_saved_at = False, now
            self.registry.mark_dirty()

    def _on_link_closed(self, job_id: str) -> None:
        self._links.pop(job_id, None)
        record = self.registry.get(job_id)
        if record is not None and record.running:
            self.settle_gone(record)
        self._resolve_gone(job_id, {})  # a shim exits only once its tree is gone

    # -- reconcile (reconciling.py) ---------------------------------------------
    async def reconcile_loop(self) -> None:
        """Every second: peers' files, then own jobs (a write a full disk refused, again)."""
        while True:
            await asyncio.sleep(RECONCILE_S)
            try:
                self.registry.refresh_peers(now_ms(), force=True)
                await self.reconcile()
            except OSError:
                pass
            except Exception as exc:  # one bad pass must not end the loop for good
                self.registry.report(f"reconcile: {type(exc).__name__}: {str(exc)[:200]}")
            self._save_lines_when_due(asyncio.get_running_loop().time())
            self.registry.save_if_dirty()

    # -- launch and attach -------------------------------------------------------
    async def launch(
        self,
        record: JobRecord,
        *,
        cols: int,
        rows: int,
        env: dict[str, str] | None,
        starter: Starter | None = None,
        declared: dict[str, Any] | None = None,
    ) -> JobRecord:
        """Record the job, start its shim, fill in its pids, attach to it.

        `starter` starts the shim from its spec (default: `launch` in a thread); a restart
        gives one that holds the shim until the old job has stopped (restarts.py)."""
        job_id = record.id
        owner = None if (record.detached or self.persistent) else os.getpid()
        marker = self.marker(job_id)
        shims = self._dependency_shims(declared)
        spec = start_spec(
            record, self.paths, self.config, owner, marker, cols, rows, declared, shims
        )
        # The record first: whatever happens to this process from here on, the job is
        # never one nobody knows of (a record without a pid is reattached by its socket).
        self.registry.add(record)
        try:
            self.registry.persist()
        except OSError as exc:
            self._forget_start(job_id)
            raise JobError(f"could not record the job: {exc.strerror or exc}", "command") from exc
        self._launching.add(job_id)
        try:
            if starter is None:
                ready = await asyncio.to_thread(launch, spec, env=env)
            else:
                ready = await starter(record, spec, env)
        except (LaunchError, OSError, JobError) as exc:
            procs.sweep(spec["marker"])  # a shim that answered too late must not leave a job
            self._forget_start(job_id)
            if isinstance(exc, JobError):
                raise
            raise JobError(str(exc), "command") from exc
        finally:
            self._launching.discard(job_id)
        self._identify(record, ready)
        self.registry.save()
        reservations.release(self.paths, job_id)
        self._publish("job-started", record)
        await self.attach(record)
        return record

    def _dependency_shims(
        self, declared: dict[str, Any] | None
    ) -> dict[str, tuple[int, str | None]] | None:
        """The shims of a declared job's dependencies, as their records know them."""
        if declared is None:
            return None
        shims: dict[str, tuple[int, str | None]] = {}
        for dep in declared.get("depends") or ():
            found = self.registry.get(str(dep.get("id")))
            if found is not None and found.shim_pid is not None:
                shims[found.id] = (found.shim_pid, found.shim_token)
        return shims

    def _forget_start(self, job_id: str) -> None:
        """A start that failed: no record, no files, no reservation."""
        with contextlib.suppress(OSError):
            self.registry.remove([job_id])
        reservations.release(self.paths, job_id)

    def _identify(self, record: JobRecord, ready: dict[str, Any]) -> bool:
        """Fill a record's pids and start tokens from the shim's ready line or state."""
        if record.pid is not None or record.shim_pid is not None:
            return False
        if not isinstance(ready.get("pid"), int):
            if ready.get("phase") is None or not isinstance(ready.get("shimPid"), int):
                return False
            # A declared job waiting for its dependencies: only its shim runs yet; the
            # `phase` event that says it spawned the command carries the pid (_apply_phase).
        else:
            record.pid = ready["pid"]
        for attr, key in (("start_token", "startToken"), ("shim_token", "shimToken")):
            value = ready.get(key)
            setattr(record, attr, value if isinstance(value, str) else None)
        shim_pid = ready.get("shimPid")
        record.shim_pid = shim_pid if isinstance(shim_pid, int) else None
        group = ready.get("cgroup")
        record.cgroup = group if isinstance(group, str) else None
        self.registry.mark_dirty()
        return True

    async def attach(self, record: JobRecord) -> bool:
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

    async def _connect(self, record: JobRecord) -> bool:
        link = ShimLink(record.id, self._on_event, self._on_link_closed)
        self._finished.setdefault(record.id, asyncio.Event())
        try:
            state = await link.connect(regfiles.reach(self.paths.socket(record.id)))
        except (OSError, LinkClosed, TimeoutError):
            await link.close()
            self.settle_gone(record)
            return False
        except BaseException:  # cancelled (a closing session): no read loop left behind
            await link.close()
            raise
        self._links[record.id] = link
        self._identify(record, state)  # a record written before its shim reported ready
        if apply_phase(record, state):
            self.registry.mark_dirty()
        self._apply_output(record, state)
        if state.get("running") is False:
            self._settle(record, from_message(state))
        return True
