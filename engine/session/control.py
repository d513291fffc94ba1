"""Acting on jobs: send, resize, wait, kill, adopt, clear.

`Controller` holds no state of its own: it acts through the manager's public API and its
`Supervisor` (the links to the shims), and every finish goes through `JobManager.settle`.
Arguments are checked here (`arguments`), before anything is done.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import time
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.calls.arguments import check, check_send, check_size
from jobs_tui.engine.procs import remaining
from jobs_tui.engine.records.model import EndReason, JobRecord, now_ms
from jobs_tui.engine.records.results import JobError, KillResult, Refused
from jobs_tui.engine.registry import peerclear, regfiles
from jobs_tui.engine.registry.exitfiles import ExitInfo, read_exit
from jobs_tui.engine.registry.room import check_room
from jobs_tui.engine.shim import procs
from jobs_tui.engine.shim.protocol import OP_OWNER, OP_RESIZE, OP_SEND

from .link import LinkClosed, ShimLink

if TYPE_CHECKING:
    from jobs_tui.engine.shim.protocol import GoneEvent

    from .parts import ControlSession

PEER_POLL_S = 0.2  # a peer's finish reaches us by its registry file: looked at this often


class Controller:
    """The verbs of `JobManager` that change a job."""

    def __init__(self, manager: ControlSession) -> None:
        self.jm = manager

    def own_running(self, job_id: str, verb: str, supervise: bool = False) -> JobRecord:
        """The record; another session's is refused unless `supervise` (a person's screen)."""
        record = self.jm.get(job_id)
        if not supervise and not self.jm.is_own(record):
            raise Refused(f"{job_id} is another session's job; not {verb}.", "id")
        return record

    async def _link(self, record: JobRecord) -> ShimLink | None:
        """The job's shim link. Another session's job (`supervise`) is linked as one more
        watcher of its shim: its owner, its file and its shim's owner watch stay as they are."""
        if self.jm.is_own(record):
            return await self.jm.supervisor.link_for(record, own=True)
        if record.running:
            await self.jm.supervisor.attach(record)
        return self.jm.supervisor.link(record.id)

    # -- input -------------------------------------------------------------------
    async def send(
        self, job_id: str, text: str | None, newline: bool, eof: bool, supervise: bool = False
    ) -> dict[str, Any]:
        check_send(job_id, text, newline, eof)
        payload = text or ""
        if text is not None and newline:
            payload += "\n"
        data = payload.encode("utf-8", "surrogateescape")  # U+DC80-U+DCFF: the original bytes
        reply = await self.send_bytes(job_id, data, eof=eof, supervise=supervise)
        return {"sent": len(text or ""), "stdinClosed": reply["stdinClosed"], "job": reply["job"]}

    async def send_bytes(
        self, job_id: str, data: bytes, eof: bool, supervise: bool = False
    ) -> dict[str, Any]:
        record = self.own_running(job_id, "sent input", supervise)
        if not record.running:
            raise Refused(f"{record.id} has already finished; nothing was sent.", "id")
        if not record.stdin:
            raise Refused(f"{record.id} was not started with stdin; nothing was sent.", "id")
        link = await self._link(record)
        if link is None:
            raise Refused(f"{record.id}: its supervisor is not reachable; nothing was sent.", "id")
        encoded = base64.b64encode(data).decode()
        try:
            reply = await link.request({"op": OP_SEND, "data": encoded, "eof": eof})
        except (LinkClosed, TimeoutError) as exc:
            raise Refused(
                f"{record.id}: its supervisor went away; nothing was sent.", "id"
            ) from exc
        if not reply.get("ok"):
            raise Refused(
                f"{record.id}: {reply.get('error', 'send failed')}; nothing was sent.", "id"
            )
        return {"sent": len(data), "stdinClosed": bool(reply.get("stdinClosed")), "job": record}

    async def set_wake(self, job_id: str, wake: bool) -> JobRecord:
        record = self.own_running(job_id, "changed")
        if record.wake != wake:
            record.wake = bool(wake)
            self.jm.registry.persist()
        return record

    async def resize(self, job_id: str, cols: int, rows: int, supervise: bool = False) -> JobRecord:
        record = self.own_running(job_id, "resized", supervise)
        if not record.tty:
            raise Refused(f"{record.id} is not a terminal job; nothing to resize.", "id")
        check_size(cols, rows)
        link = await self._link(record) if record.running else None
        reply: dict[str, Any] = {}
        if link is not None:
            with contextlib.suppress(LinkClosed, TimeoutError):
                reply = await link.request({"op": OP_RESIZE, "cols": cols, "rows": rows})
        if not reply.get("ok"):
            raise Refused(f"{record.id}: {reply.get('error', 'not reachable')}", "id")
        if (record.term_cols, record.term_rows) != (cols, rows):
            record.term_cols, record.term_rows = cols, rows  # a view opened later uses it
            if self.jm.is_own(record):  # another session's file is its own to write
                self.jm.registry.persist()
        return record

    # -- waiting -----------------------------------------------------------------
    async def wait(self, job_id: str, timeout_ms: int, report: bool) -> JobRecord:
        record = self.jm.get(job_id)
        deadline = time.monotonic() + timeout_ms / 1000
        while record.running:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            supervisor = self.jm.supervisor
            if supervisor.link(job_id) is None:
                await supervisor.link_for(record, self.jm.is_own(record))  # attach=False
            event = supervisor.finish_event(job_id)
            if event is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), left)
            else:  # a peer's job: nothing pushes its finish to us
                await asyncio.sleep(min(left, PEER_POLL_S))
                self.jm.registry.refresh_peers(now_ms())
            record = self.jm.get(job_id)
        if report:
            self.jm.mark_seen(record.id)
        return record

    # -- kill --------------------------------------------------------------------
    async def kill(
        self,
        job_id: str,
        signal: str,
        supervise: bool = False,
        stop: bool = False,
        door: str | None = None,
    ) -> KillResult:
        """`supervise`: another session's job is killed where it is (its shim is asked, as
        its owner would ask it), not taken over first; it stays that session's job.
        `stop`: a declared job's shim sends its declared stop signal instead. `door`: who
        asks (screen, cli, mcp, ...; default the session's), for the record's `endedBy`."""
        check("id", job_id)
        by = {"door": door or self.jm.door or "", "session": self.jm.session_id}
        by = {k: v for k, v in by.items() if v}
        check("signal", signal)
        record = self.jm.get(job_id)
        adopted = False
        if not self.jm.is_own(record) and not supervise:
            if not record.running:
                raise Refused(f"{record.id} is another session's job; not killed.", "id")
            await self.adopt(record.id)
            adopted = True
            record = self.jm.get(record.id)
        supervisor = self.jm.supervisor
        await self._link(record)  # a gone shim's job: swept and settled
        if not record.running:
            # Whatever settled it (this call's attach, or this session's reconcile), a job
            # whose shim is gone is swept by its marker and cgroup before anything is said.
            swept = supervisor.swept.pop(record.id, 0)
            if not procs.same_process(record.shim_pid, record.shim_token):
                swept += remaining.kill_gone_shim(supervisor.marker(record.id), record)
            if swept:
                remaining.refresh([record], supervisor.marker)
                return self._killed_gone(record, signal, adopted, swept)
            return await self._kill_leftovers(record, signal, adopted)
        if self.jm.supervisor.link(record.id) is None:
            # no supervisor to ask (another tool's job): signal the group
            return self._kill_unsupervised(record, signal, adopted, by)
        if record.stopping_at is None:
            record.stopping_at = now_ms()
            self.jm.registry.save()  # our own file only: a peer's record is marked here alone
        reply, report = await self.jm.supervisor.kill(record, signal, stop=stop, by=by)
        if stop and isinstance(reply.get("signal"), str):
            signal = reply["signal"]  # the declared stop signal the shim sent
        processes = int(reply.get("processes") or reply.get("leftovers") or 0)
        record = self.jm.get(record.id)
        note = None
        if report is None or record.running:
            note = f"{record.id}: the kill did not finish within the grace period"
            if record.running and record.stopping_at is not None:
                record.stopping_at = None
                self.jm.registry.save()
        return _result(record, True, signal, adopted, note, processes, report)

    async def interrupt(self, job_id: str, supervise: bool = False) -> KillResult:
        """SIGINT to an own running job's process group, as a terminal's Ctrl-C.

        Not a kill: no `stopping`, no SIGKILL after the grace; a job that handles it
        (a trap, a REPL) goes on, one that does not ends `killed · SIGINT`. Sent by this
        session to the group of the job's leader, checked by its start token and marker
        (the shim is not involved: it would escalate)."""
        check("id", job_id)
        record = self.own_running(job_id, "interrupted", supervise)
        if not record.running:
            raise Refused(f"{record.id} has already finished; not interrupted.", "id")
        members = len(procs.group_members(record.pid)) if record.pid else 0
        marker = self.jm.supervisor.marker(record.id)
        number = procs.signal_number("SIGINT")
        signalled = procs.kill_group_checked(record.pid, record.start_token, number, marker)
        note = None if signalled else f"{record.id}: its process group is gone; not signalled"
        return KillResult(
            record, signalled, "SIGINT", 0, False, note, processes=members if signalled else 0
        )

    def _killed_gone(self, record: JobRecord, signal: str, adopted: bool, swept: int) -> KillResult:
        """A running record whose shim was gone: what was left of its tree was swept (its
        marked processes, its cgroup) before it was settled."""
        note = f"{record.id}: its supervisor was gone; killed {swept} process(es) left of it"
        return KillResult(record, True, signal, 0, adopted, note, processes=swept)

    async def _kill_leftovers(self, record: JobRecord, signal: str, adopted: bool) -> KillResult:
        """A finished job: kill what it left running, if anything (its shim still watches
        it; or, its shim gone, by its marker and its cgroup)."""
        remaining.refresh([record], self.jm.supervisor.marker)
        if not record.remaining_processes:
            note = f"{record.id} had already finished"
            return _result(record, False, signal, adopted, note, 0, None)
        supervisor = self.jm.supervisor
        report = None
        if procs.same_process(record.shim_pid, record.shim_token):
            await supervisor.attach(record)
        if supervisor.link(record.id) is not None:
            reply, report = await supervisor.kill(record, signal, leftovers=True)
            leftovers = int(reply.get("leftovers") or 0)
        else:
            leftovers = remaining.kill_gone_shim(supervisor.marker(record.id), record)
            report = {"processes": leftovers}
        remaining.refresh([record], supervisor.marker)  # 0, once the kill is over
        self.jm.registry.save()
        note = f"{record.id}: killed {leftovers} process(es) it left running"
        if record.remaining_processes:
            note = f"{record.id}: {record.remaining_processes} process(es) it left still run"
        result = _result(record, False, signal, adopted, note, leftovers, report)
        result.leftovers = leftovers
        return result

    def _kill_unsupervised(
        self, record: JobRecord, signal: str, adopted: bool, by: dict[str, str]
    ) -> KillResult:
        number = procs.signal_number(signal)
        members = len(procs.group_members(record.pid)) if record.pid else 0
        marker = self.jm.supervisor.marker(record.id)
        signalled = procs.kill_group_checked(record.pid, record.start_token, number, marker)
        if record.shim_pid is None and record.pid is None:
            # Its pids never reached the record (its shim died before it said them): what
            # carries its marker, or is in its cgroup, is its tree.
            swept = remaining.kill_gone_shim(marker, record)
            if swept:
                info = ExitInfo(-9, EndReason.KILL.value, "SIGKILL", now_ms(), **_asked(by))
                self.jm.settle(record, info)
                return self._killed_gone(record, signal, adopted, swept)
        info = read_exit(self.jm.paths, record.id, record.status_path)
        if info is None and signalled:
            info = ExitInfo(-number, EndReason.KILL.value, signal, now_ms(), **_asked(by))
        self.jm.settle(record, info)
        return KillResult(
            record, signalled, signal, 0, adopted, processes=members if signalled else 0
        )

    async def kill_quietly(self, job_id: str, supervise: bool = False) -> None:
        with contextlib.suppress(JobError, LinkClosed, TimeoutError):
            await self.kill(job_id, "SIGTERM", supervise)

    # -- ownership ---------------------------------------------------------------
    async def adopt(self, job_id: str) -> JobRecord:
        record = self.jm.get(job_id)
        if self.jm.is_own(record):
            return record
        record = self.jm.registry.take_over(job_id)
        await self.jm.supervisor.attach(record)
        if not record.detached and not self.jm.persistent:
            await self.jm.supervisor.tell_owner(job_id, os.getpid())
        return record

    async def detach(self, job_id: str) -> JobRecord:
        """Let an own running job outlive this session: detached, its shim stops watching us."""
        record = self.own_running(job_id, "detached")
        if not record.running or record.detached:
            return record
        link = await self._link(record)
        reply: dict[str, Any] = {}
        if link is not None:
            with contextlib.suppress(LinkClosed, TimeoutError):
                reply = await link.request({"op": OP_OWNER, "pid": None, "token": None})
        if not reply.get("ok"):
            raise Refused(f"{record.id}: its supervisor is not reachable; not detached.", "id")
        record.detached = True
        self.jm.registry.persist()
        return record

    async def clear(
        self, job_id: str | None, all: bool, supervise: bool = False
    ) -> list[JobRecord]:
        """Remove finished own records; a running one, or a finished one whose processes
        still run, only with `all` (which kills them first): nothing is tracked nowhere.

        `supervise` (a person's screen): other sessions' finished records too, taken out of
        their owners' files as a take-over takes a record out (`peerclear`)."""
        marker = self.jm.supervisor.marker
        if job_id is not None:
            record = self.jm.get(job_id)
            if not supervise and not self.jm.is_own(record):
                raise Refused(f"{job_id} is another session's job; not cleared.", "id")
            if record.running and not all:
                raise Refused(f"{job_id} is still running; kill it first or pass all.", "id")
            remaining.refresh([record], marker)
            if record.remaining_processes and not all:
                raise Refused(
                    f"{job_id} has finished, but {record.remaining_processes} process(es) "
                    f"it started still run; kill them first (kill {job_id}) or pass all.",
                    "id",
                )
            targets = [record]
        else:
            own = self.jm.jobs(include_peers=supervise)
            remaining.refresh(own, marker)
            targets = [r for r in own if all or not (r.running or r.remaining_processes)]
            if supervise and all:  # another session's running jobs are not cleared at once
                targets = [r for r in targets if self.jm.is_own(r) or not r.running]
        if not targets:
            return []
        try:  # no room for the smaller registry file: refused before anything is killed
            check_room(self.jm.paths.root, _size(self.jm.registry.own_path))
        except OSError as exc:
            raise JobError(self._clear_error(exc, "nothing was cleared or killed")) from exc
        killed = [r.id for r in targets if r.running or r.remaining_processes]
        for job_id in killed:
            await self.kill_quietly(job_id, supervise)
        theirs = [r for r in targets if not self.jm.is_own(r)]
        try:
            cleared = self.jm.registry.remove([r.id for r in targets if self.jm.is_own(r)])
        except OSError as exc:  # the room went meanwhile: every record stays, as it is
            done = f"{', '.join(killed)} killed first; " if killed else ""
            raise JobError(self._clear_error(exc, f"{done}every record stays")) from exc
        cleared += peerclear.clear_peers(self.jm.registry, self.jm.paths, theirs)
        for record in cleared:
            await self.jm.supervisor.forget(record.id)
        return cleared

    def _clear_error(self, exc: OSError, what: str) -> str:
        """`could not clear: No space left on device (registry dir D); ...`."""
        why = exc.strerror or str(exc)
        return f"could not clear: {why} (registry dir {self.jm.paths.root}); {what}"


def _size(path: os.PathLike[str]) -> int:
    """The file's size now, or a page when it is not there yet."""
    try:
        return regfiles.stat(path).st_size
    except OSError:
        return 4096


def _result(
    record: JobRecord,
    signalled: bool,
    signal: str,
    adopted: bool,
    note: str | None,
    processes: int,
    report: GoneEvent | None,
) -> KillResult:
    report = report or {}
    return KillResult(
        record,
        signalled,
        signal,
        0,
        adopted,
        note,
        escalated=bool(report.get("escalated")),
        processes=max(processes, int(report.get("processes") or 0)),
    )


def _asked(by: dict[str, str]) -> dict[str, str | None]:
    """ExitInfo's keywords for a kill this session made itself (no shim wrote them)."""
    return {"door": by.get("door"), "door_session": by.get("session")}
