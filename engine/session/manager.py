"""`JobManager`: one session's typed API over its jobs, and the one settle path.

The facade composes what does the work, each owning its state: the `Registry` (records
on disk, merged with peers'), the `Supervisor` (launching shims, one link per job, the
reconcile of own jobs), the `Controller` (send, resize, wait, kill, adopt, clear), the
`LogReader`, the `Lifecycle` (open, heartbeat, close) and the `Subscribers`. Every
public method takes typed arguments and checks them itself (`arguments`); the tool
vocabularies (`engine/tools/`) are adapters over these methods.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from jobs_tui.engine.calls.arguments import check
from jobs_tui.engine.config import Config, resolve_registry_dir
from jobs_tui.engine.procs import remaining
from jobs_tui.engine.procs.resources import JobUsage, UsageSampler
from jobs_tui.engine.records.model import JobEvent, JobRecord, now_ms
from jobs_tui.engine.records.results import (
    InvalidArgument,
    KillResult,
    UnknownJob,
)
from jobs_tui.engine.registry.exitfiles import ExitInfo
from jobs_tui.engine.registry.paths import RegistryPaths, project_root
from jobs_tui.engine.registry.reconcile import finish
from jobs_tui.engine.registry.table import Registry
from jobs_tui.engine.shim import procs

from . import declaring, restarts, starting
from .control import Controller
from .lifecycle import Lifecycle
from .logreads import LogReads
from .parts import Subscriber, Subscribers
from .reading import LogReader
from .supervision import Supervisor

if TYPE_CHECKING:
    from jobs_tui.engine.declared.model import Stack
    from jobs_tui.engine.procs.straykill import StrayKill
    from jobs_tui.engine.procs.strays import Stray

    from .waiting import ScreenScanner, WaitResult


class JobManager(LogReads):
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
        door: str | None = None,
    ) -> None:
        self.cwd = os.path.abspath(os.fspath(cwd))
        self.config = config if config is not None else Config.load()
        self.dir = resolve_registry_dir(self.cwd, registry_dir, self.config, registry_dir_flag)
        self.paths = RegistryPaths(self.dir)
        self.session_id = session_id or f"jt-{os.urandom(8).hex()}"
        self.persistent = persistent
        self.door = door  # who this session's kills come from (screen, cli, mcp, ...): endedBy
        self.registry = Registry(self.paths, self.session_id, self.config, persistent=persistent)
        for warning in self.config.warnings:
            self.registry.report(warning)
        self._subscribers = Subscribers()
        self.registry.on_change = lambda: self._subscribers.announce(
            JobEvent("registry-changed", "", "", "")
        )
        self.supervisor = Supervisor(
            self.registry,
            self.paths,
            self.config,
            persistent=persistent,
            settle=self.settle,
            publish=self._subscribers.publish,
        )
        self._control = Controller(self)
        self._reader = LogReader(self.paths, self.config)
        self._usage = UsageSampler()
        self._life = Lifecycle(self.dir, self.registry, self.supervisor, self._control.kill_quietly)

    # -- lifecycle ---------------------------------------------------------------
    async def __aenter__(self) -> JobManager:
        await self.open()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def open(self, *, attach: bool = True) -> None:
        """Load the registry, settle what ended, adopt dead sessions' jobs, start the loops.

        `attach=False` (a short call such as the command line's): no shim is connected
        up front; liveness is checked by pid and start token, so a dead shim's job is
        still settled and swept, and a job is attached only when something needs it
        (`wait`, `send`, `resize`, `kill` of that job). Nothing is written unless
        something changed.
        """
        await self._life.open(attach)

    def install_signal_handlers(self) -> None:
        """SIGTERM / SIGHUP close the session (own jobs killed, registry written), then exit."""
        self._life.install_signal_handlers()

    async def close(self, kill_jobs: bool | None = None) -> None:
        """Kill own attached jobs (`kill_jobs`, default: unless persistent), stop the loops,
        write the registry, remove the marker."""
        await self._life.close(kill_jobs)

    # -- events ------------------------------------------------------------------
    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback` with each JobEvent; returns the unsubscribe function."""
        return self._subscribers.subscribe(callback)

    # -- the one settle path -----------------------------------------------------
    def settle(self, record: JobRecord, info: ExitInfo | None) -> None:
        """Every finish goes through here: record, disk, waiters, subscribers."""
        if not record.running:
            return
        finish(record, info, now_ms(), procs.signal_name)
        if info is not None and info.note:
            self.registry.report(info.note)
        self.registry.prune()
        self.registry.save()
        self.supervisor.announce_finish(record.id)
        self._subscribers.publish("job-finished", record)

    # -- queries -----------------------------------------------------------------
    def find(self, job_id: str) -> JobRecord | None:
        """The record if this session knows the job now (no look at peers' files)."""
        return self.registry.get(job_id)

    def get(self, job_id: str) -> JobRecord:
        """The record of an id or a declared name (its current job); a job started
        elsewhere since the last look is looked for first."""
        name = declaring.name_of(job_id)
        record = self.declared_job(name) if name else self.registry.get(job_id)
        if record is None:  # started elsewhere since the last look: look now
            self.registry.refresh_peers(now_ms(), force=True)
            record = self.declared_job(name) if name else self.registry.get(job_id)
        if record is None:
            if name:
                raise UnknownJob(f"id {name!r} is not a known job or a declared job's name", "id")
            raise UnknownJob(f"id {job_id!r} is not a known job", "id")
        return record

    def declared_job(self, name: str) -> JobRecord | None:
        """The declared name's current job: running (the newest), else the newest."""
        return declaring.current(self.registry.all(), name)

    @property
    def problems(self) -> list[str]:
        """Every distinct problem this session met (quarantined files, refused paths, ...)."""
        return list(self.registry.problems)

    @property
    def pruned(self) -> int:
        """This session's finished records dropped by `max_jobs` (kept in its registry file)."""
        return self.registry.pruned

    def take_problems(self) -> list[str]:
        """Problems (quarantined files, skipped entries, refused paths) not reported yet."""
        return self.registry.take_problems()

    def is_own(self, record: JobRecord) -> bool:
        return record.session_id == self.session_id

    def jobs(self, include_peers: bool = True) -> list[JobRecord]:
        """Running first (newest first), then finished (most recent first)."""
        records = [r for r in self.registry.all() if include_peers or self.is_own(r)]
        return sorted(records, key=lambda r: (not r.running, -r.ended_at(), -r.number))

    async def list(self, all: bool = False) -> list[JobRecord]:
        self.registry.refresh_peers(now_ms())
        records = [r for r in self.jobs() if all or self.is_own(r) or r.running]
        self._count_remaining(records)
        return records

    async def status(self, job_id: str) -> JobRecord:
        record = self.get(job_id)
        self._count_remaining([record])
        self._mark_seen(record)
        return record

    def _count_remaining(self, records: list[JobRecord]) -> None:
        """Finished jobs that said processes remain: counted again (see `remaining`)."""
        if any(self.is_own(r) for r in remaining.refresh(records, self.supervisor.marker)):
            self.registry.mark_dirty()

    def mark_seen(self, job_id: str) -> None:
        """Someone saw this finished job's result (its log pane was open when it ended)."""
        record = self.registry.get(job_id)
        if record is not None:
            self._mark_seen(record)

    def _mark_seen(self, record: JobRecord) -> None:
        """Written at once, not at the next heartbeat: another process of the session (an
        agent's hook, run right after the call that reported it) must not report it again."""
        if not record.running and self.is_own(record) and not record.seen:
            record.seen = True
            self.registry.save()

    def pending_reports(self) -> list[JobRecord]:
        """Own finished jobs whose finish has not been reported (seen) yet: by anyone of
        this session, an agent's hook (another process) included, so our file first."""
        self.registry.refresh_own()
        return [r for r in self.jobs(include_peers=False) if not r.running and not r.seen]

    def take_reports(self) -> list[JobRecord]:
        reports = self.pending_reports()
        for record in reports:
            record.seen = True
        if reports:
            self.registry.mark_dirty()
        return reports

    async def usage(self, ids: list[str] | None = None) -> dict[str, JobUsage]:
        """CPU %, RSS, process count and listening ports of each running job's tree.

        Every running job this machine runs (peers' included), or those of `ids`; a job
        that is not running (or not a live process here) has no entry. One pass over the
        process table serves all jobs, off the event loop, at most once a second (calls
        in between get that pass's answer): call it only while someone looks. A job's
        first sample has `cpu_percent` None (a rate needs two). See `engine/procs/resources.py`.
        """
        if ids is not None:
            for job_id in ids:
                check("id", job_id)
                self.get(job_id)
        self.registry.refresh_peers(now_ms())
        found = await self._usage.sample([r for r in self.registry.all() if r.running])
        return found if ids is None else {i: found[i] for i in ids if i in found}

    async def strays(self) -> list[Stray]:
        """Processes that escaped: this user's, working inside the project, orphaned
        (parent init or a subreaper), of no job's tree (peers' running ones included).
        See `engine/procs/strays.py`; one pass over the process table, off the loop."""
        import asyncio

        from jobs_tui.engine.procs import straykill

        self.registry.refresh_peers(now_ms())
        records = list(self.registry.all())
        return await asyncio.to_thread(straykill.gather, str(project_root(self.cwd)), records)

    async def kill_strays(self, pids: Sequence[int]) -> list[StrayKill]:
        """Kill the trees of these strays (SIGTERM, SIGKILL after `kill_grace_ms`). Each
        pid is checked first: one that is not a stray now is an InvalidArgument naming
        `pid`, and nothing is killed."""
        import asyncio

        from jobs_tui.engine.procs import straykill

        if not pids:
            raise InvalidArgument("pid: name at least one stray's pid", "pid")
        for pid in pids:
            if isinstance(pid, bool) or not isinstance(pid, int) or pid < 1:
                raise InvalidArgument(f"pid {pid!r} is not a process id", "pid")
        self.registry.refresh_peers(now_ms())
        records = list(self.registry.all())
        grace = self.config.kill_grace_ms / 1000
        root = str(project_root(self.cwd))
        return await asyncio.to_thread(straykill.kill, root, records, list(pids), grace)

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
        restart_of: str | None = None,
        declared: dict[str, Any] | None = None,
    ) -> JobRecord:
        """Start `command` as a job; returns its record at once (running).

        `declared`: a declared job's rules (shim/protocol.py's DeclaredSpec, dependencies
        by job id): its shim waits for the dependencies, probes and restarts it, whether
        or not this session is still there.

        `env` is added to the job's environment: its values are kept for a restart in a
        0600 file of the registry directory, never in the registry or on a command line;
        the record holds the names (`env_names`). `restart_of` names the job this one
        restarts (`restart` sets it).
        """
        return await starting.start(
            self,
            command,
            label=label,
            stdin=stdin,
            timeout_ms=timeout_ms,
            wake=wake,
            detached=detached,
            cwd=cwd,
            tty=tty,
            cols=cols,
            rows=rows,
            env=env,
            restart_of=restart_of,
            declared=declared,
        )

    async def restart(self, job_id: str, *, supervise: bool = False) -> JobRecord:
        """Kill the job if it runs (the normal grace), then start it again as a new job.

        The same command, cwd, label, environment, stdin/tty (and size), deadline, wake
        and detached flag; returns the new running record, whose `restart_of` is `job_id`.
        A peer's running job is refused, as `kill` does not take it without a take-over
        first here (`adopt`), unless `supervise` (a person's screen: it is killed where it
        is, and stays its session's). Everything is checked before the old job is touched.
        """
        return await restarts.restart(self, job_id, supervise)

    # -- declared jobs (declaring.py) ---------------------------------------------
    async def up(
        self, stack: Stack, names: list[str] | None = None, *, detached: bool | None = None
    ) -> declaring.UpResult:
        """Start the named declared jobs and what they depend on (None: those with
        `autostart`), a level at a time; a name whose job runs is left as it is. Returns
        once every shim runs: each waits for its dependencies, probes and restarts its job
        itself, with or without this session. UnknownDeclared: nothing started."""
        return await declaring.up(self, stack, names, detached)

    async def down(
        self, stack: Stack | None = None, names: list[str] | None = None
    ) -> declaring.DownResult:
        """Stop the named declared jobs and their dependents (None: all of them),
        dependents first, each with its declared stop signal; never restarted."""
        return await declaring.down(self, stack, names)

    # -- acting on jobs (control.py) ---------------------------------------------
    async def send(
        self,
        job_id: str,
        text: str | None = None,
        newline: bool = True,
        eof: bool = False,
        *,
        supervise: bool = False,
    ) -> dict[str, Any]:
        """`text` (plus a newline) to an own running job's stdin; `eof` closes it after.

        Returns `{"sent": characters, "stdinClosed": bool, "job": record}`. `supervise` (a
        person's screen), here and below: another session's job too, where it is (its shim
        is asked; it is not taken over).
        """
        return await self._control.send(job_id, text, newline, eof, supervise)

    async def send_bytes(
        self, job_id: str, data: bytes, eof: bool = False, *, supervise: bool = False
    ) -> dict[str, Any]:
        """Raw bytes to an own running job's stdin (or terminal); `eof` closes a pipe."""
        return await self._control.send_bytes(job_id, data, eof, supervise)

    async def set_wake(self, job_id: str, wake: bool) -> JobRecord:
        """Arm or disarm the proactive finish report of an own job, without touching it."""
        return await self._control.set_wake(job_id, wake)

    async def resize(
        self, job_id: str, cols: int, rows: int, *, supervise: bool = False
    ) -> JobRecord:
        """Set a terminal job's window size; the program sees SIGWINCH."""
        return await self._control.resize(job_id, cols, rows, supervise)

    async def wait(
        self, job_id: str, timeout_ms: int = 30_000, *, report: bool = True
    ) -> JobRecord:
        """The record once finished, or still running when `timeout_ms` passes.

        `report=False` leaves a finish unreported (not `seen`), for a caller that reports it
        only once the job's output has been read.
        """
        return await self._control.wait(job_id, timeout_ms, report)

    async def wait_many(
        self,
        ids: Sequence[str],
        *,
        mode: Literal["any", "all"] = "all",
        until: str | None = None,
        from_start: bool = False,
        timeout_ms: int = 30_000,
        screen_scanner: ScreenScanner | None = None,
        port: int | None = None,
        ready: bool = False,
    ) -> WaitResult:
        """Wait for several jobs (`mode` any: the first to end; all: every one), or with
        `until` (a Python regex) for the first line of their output that matches, or with
        `port` until one's process tree listens on that TCP port (reason "port"), or with
        `ready` until declared jobs' probes pass (reason "ready"; "not-ready" when one's
        probe gave up at its limit).

        Lines are searched from the call's start, or from each job's start with
        `from_start`; the match carries the line (sanitized) and its absolute offset, the
        job still running. Nothing polls while the jobs are quiet: it wakes on the shims'
        events and the logs' writes (inotify), reading only new bytes; a peer's job is
        looked at every 0.5 s. A bad regex is InvalidArgument naming `until`.
        `screen_scanner`: how a terminal job's rows are matched instead of its bytes' lines
        (a door with an emulator passes one; see `waiting.ScreenScanner`).
        """
        from . import waiting  # inotify and the scanner load only for a wait that uses them

        return await waiting.wait_many(
            self,
            ids,
            mode=mode,
            until=until,
            from_start=from_start,
            timeout_ms=timeout_ms,
            screen_scanner=screen_scanner,
            port=port,
            ready=ready,
        )

    async def kill(
        self,
        job_id: str,
        signal: str = "SIGTERM",
        *,
        supervise: bool = False,
        stop: bool = False,
        door: str | None = None,
    ) -> KillResult:
        """Signal the job's tree; return once every process of it is gone.

        TERM (or INT) first, SIGKILL from the shim after `kill_grace_ms` if any process
        outlived it (`escalated`); `processes` counts the processes the kill reached.
        While it runs the record carries `stopping_at`, so every session can show it,
        and a second kill (SIGKILL now) goes through at once. Another session's running
        job is taken over first (`adopted`), unless `supervise` (a person's screen): then
        its shim is asked where it is, and the job stays that session's. `stop`: a declared
        job is sent its declared `stop_signal` instead of `signal` (`down`). `door`: who
        asks (default `self.door`), said in the record's `endedBy`.
        """
        return await self._control.kill(job_id, signal, supervise, stop, door)

    async def interrupt(self, job_id: str, *, supervise: bool = False) -> KillResult:
        """SIGINT to an own running job's process group (a terminal's Ctrl-C): not a kill,
        so no `stopping` and no SIGKILL after the grace; the job may handle it and go on."""
        return await self._control.interrupt(job_id, supervise)

    async def detach(self, job_id: str) -> JobRecord:
        """Let an own running job outlive this session (as if started detached): a screen's
        "quit and leave them running"."""
        return await self._control.detach(job_id)

    async def adopt(self, job_id: str) -> JobRecord:
        """Deliberately take over another session's running job."""
        return await self._control.adopt(job_id)

    async def clear(
        self, job_id: str | None = None, all: bool = False, *, supervise: bool = False
    ) -> list[JobRecord]:
        """Remove finished own records (one, or all); `all` also kills and removes running ones.

        `supervise` (a person's screen): other sessions' finished records too."""
        return await self._control.clear(job_id, all, supervise)
