"""Acting on jobs: send, resize, wait, kill, adopt, clear, and completion reports."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import re
import time
from typing import TYPE_CHECKING, Any

from . import procs
from .calls import JobCall
from .exitfiles import ExitInfo, read_exit
from .link import LinkClosed
from .model import EndReason, JobRecord, now_ms
from .results import JobError, KillResult, Refused

if TYPE_CHECKING:
    from .manager import JobManager

MIN_COLS, MAX_COLS, MIN_ROWS, MAX_ROWS = 20, 500, 5, 300
KILL_MARGIN_S = 5.0  # after the grace: SIGKILL was sent, the tree dies at once (unless in D)


def check_size(cols: int, rows: int) -> None:
    if not (MIN_COLS <= cols <= MAX_COLS and MIN_ROWS <= rows <= MAX_ROWS):
        raise JobError(
            f"terminal size {cols}x{rows} is outside {MIN_COLS}-{MAX_COLS} x {MIN_ROWS}-{MAX_ROWS}",
            "cols",
        )


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_env(env: dict[str, str] | None) -> dict[str, str] | None:
    """Extra environment for a job: names a shell accepts, string values without NUL."""
    if env is None:
        return None
    if not isinstance(env, dict):
        raise JobError("env must be an object of NAME: value strings", "env")
    for name, value in env.items():
        if not isinstance(name, str) or not _ENV_NAME.match(name):
            raise JobError(f"env name {name!r} is not a valid variable name", "env")
        if not isinstance(value, str) or "\x00" in value:
            raise JobError(f"env.{name} must be a string without NUL characters", "env")
    return dict(env)


class ControlMixin:
    """The verbs of JobManager that change a job; mixed into it, sharing its state."""

    def _own_running(self: JobManager, job_id: str, verb: str) -> JobRecord:
        record = self.get(job_id)
        if not self.is_own(record):
            raise Refused(f"{job_id} is another session's job; not {verb}.", "id")
        return record

    async def send(
        self: JobManager,
        job_id: str,
        text: str | None = None,
        newline: bool = True,
        eof: bool = False,
    ) -> dict[str, Any]:
        call = self._validate(
            {"action": "send", "id": job_id, "input": text, "newline": newline, "eof": eof}
        )
        return await self._send(call)

    async def _send(self: JobManager, call: JobCall) -> dict[str, Any]:
        payload = call.input or ""
        if call.input is not None and call.newline:
            payload += "\n"
        data = payload.encode("utf-8", "surrogateescape")  # U+DC80-U+DCFF: the original bytes
        reply = await self.send_bytes(call.id or "", data, eof=call.eof)
        return {
            "sent": len(call.input or ""),
            "stdinClosed": reply["stdinClosed"],
            "job": reply["job"],
        }

    async def send_bytes(
        self: JobManager, job_id: str, data: bytes, eof: bool = False
    ) -> dict[str, Any]:
        """Raw bytes to an own running job's stdin (or terminal); `eof` closes a pipe."""
        record = self._own_running(job_id, "sent input")
        if not record.running:
            raise Refused(f"{record.id} has already finished; nothing was sent.", "id")
        if not record.stdin:
            raise Refused(f"{record.id} was not started with stdin; nothing was sent.", "id")
        link = await self._link_for(record)
        if link is None:
            raise Refused(f"{record.id}: its supervisor is not reachable; nothing was sent.", "id")
        encoded = base64.b64encode(data).decode()
        try:
            reply = await link.request({"op": "send", "data": encoded, "eof": eof})
        except (LinkClosed, TimeoutError) as exc:
            raise Refused(
                f"{record.id}: its supervisor went away; nothing was sent.", "id"
            ) from exc
        if not reply.get("ok"):
            raise Refused(
                f"{record.id}: {reply.get('error', 'send failed')}; nothing was sent.", "id"
            )
        return {"sent": len(data), "stdinClosed": bool(reply.get("stdinClosed")), "job": record}

    async def set_wake(self: JobManager, job_id: str, wake: bool) -> JobRecord:
        """Arm or disarm the proactive finish report of an own job, without touching it."""
        record = self._own_running(job_id, "changed")
        if record.wake != wake:
            record.wake = bool(wake)
            self.registry.persist()
        return record

    async def resize(self: JobManager, job_id: str, cols: int, rows: int) -> JobRecord:
        """Set a terminal job's window size; the program sees SIGWINCH."""
        record = self._own_running(job_id, "resized")
        if not record.tty:
            raise Refused(f"{record.id} is not a terminal job; nothing to resize.", "id")
        check_size(cols, rows)
        link = await self._link_for(record)
        reply: dict[str, Any] = {}
        if link is not None:
            with contextlib.suppress(LinkClosed, TimeoutError):
                reply = await link.request({"op": "resize", "cols": cols, "rows": rows})
        if not reply.get("ok"):
            raise Refused(f"{record.id}: {reply.get('error', 'not reachable')}", "id")
        return record

    async def wait(
        self: JobManager, job_id: str, timeout_ms: int = 30_000, *, report: bool = True
    ) -> JobRecord:
        """The record once finished, or still running when `timeout_ms` passes.

        `report=False` leaves a finish unreported (not `seen`), for a caller that reports it
        only once the job's output has been read.
        """
        record = self.get(job_id)
        deadline = time.monotonic() + timeout_ms / 1000
        while record.running:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if job_id not in self._links:
                await self._link_for(record)  # attach=False: attached when waited on
            event = self._finished.get(job_id)
            if event is not None and job_id in self._links:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), left)
            else:  # a peer's job: nothing pushes its finish to us
                await asyncio.sleep(min(left, 0.2))
                self.registry.refresh_peers(now_ms())
            record = self.get(job_id)
        if report:
            self._mark_seen(record)
        return record

    async def kill(self: JobManager, job_id: str, signal: str = "SIGTERM") -> KillResult:
        """Signal the job's tree; return once every process of it is gone.

        TERM (or INT) first, SIGKILL from the shim after `kill_grace_ms` if any process
        outlived it (`escalated`); `processes` counts the processes the kill reached.
        While it runs the record carries `stopping_at`, so every session can show it,
        and a second kill (SIGKILL now) goes through at once.
        """
        call = self._validate({"action": "kill", "id": job_id, "signal": signal})
        record = self.get(call.id or "")
        adopted = False
        if not self.is_own(record):
            if not record.running:
                raise Refused(f"{record.id} is another session's job; not killed.", "id")
            await self.adopt(record.id)
            adopted = True
            record = self.get(record.id)
        link = await self._link_for(record)
        if not record.running:
            return await self._kill_leftovers(record, call.signal, adopted)
        if link is None:  # no supervisor to ask (another tool's job): signal the group
            return self._kill_unsupervised(record, call.signal, adopted)
        if record.stopping_at is None:
            record.stopping_at = now_ms()
            self._persist()
        gone = self._gone_waiter(record.id)
        processes = 0
        with contextlib.suppress(LinkClosed, TimeoutError):  # it may be exiting right now
            reply = await link.request({"op": "kill", "signal": call.signal})
            processes = int(reply.get("processes") or reply.get("leftovers") or 0)
        report = await self._until_gone(gone)
        record = self.get(record.id)
        note = None
        if report is None or record.running:
            note = f"{record.id}: the kill did not finish within the grace period"
            if record.running and record.stopping_at is not None:
                record.stopping_at = None
                self._persist()
        report = report or {}
        return KillResult(
            record,
            True,
            call.signal,
            0,
            adopted,
            note,
            escalated=bool(report.get("escalated")),
            processes=max(processes, int(report.get("processes") or 0)),
        )

    async def _kill_leftovers(
        self: JobManager, record: JobRecord, signal: str, adopted: bool
    ) -> KillResult:
        """A finished job: kill what it left behind (its shim still watches it), if anything."""
        link = self._links.get(record.id)
        leftovers, report = 0, None
        if link is not None:
            gone = self._gone_waiter(record.id)
            with contextlib.suppress(LinkClosed, TimeoutError):  # its shim may be gone
                reply = await link.request({"op": "kill", "signal": signal})
                leftovers = int(reply.get("leftovers") or 0)
            if leftovers:
                report = await self._until_gone(gone)
        note = f"{record.id} had already finished"
        if leftovers:
            note += f"; killed {leftovers} leftover process(es) of its group"
        report = report or {}
        return KillResult(
            record,
            False,
            signal,
            leftovers,
            adopted,
            note,
            escalated=bool(report.get("escalated")),
            processes=max(leftovers, int(report.get("processes") or 0)),
        )

    def _kill_unsupervised(
        self: JobManager, record: JobRecord, signal: str, adopted: bool
    ) -> KillResult:
        number = procs.signal_number(signal)
        members = len(procs.group_members(record.pid)) if record.pid else 0
        signalled = procs.kill_group_checked(
            record.pid, record.start_token, number, self._marker(record.id)
        )
        info = read_exit(self.paths, record.id, record.status_path)
        if info is None and signalled:
            info = ExitInfo(-number, EndReason.KILL.value, signal, now_ms())
        self.settle(record, info)
        return KillResult(
            record, signalled, signal, 0, adopted, processes=members if signalled else 0
        )

    def _gone_waiter(self: JobManager, job_id: str) -> asyncio.Future[dict[str, Any]]:
        """Resolved by the shim's `gone` event (or its exit): shared by concurrent kills."""
        waiter = self._gone.get(job_id)
        if waiter is None or waiter.done():
            waiter = asyncio.get_running_loop().create_future()
            self._gone[job_id] = waiter
        return waiter

    async def _until_gone(
        self: JobManager, waiter: asyncio.Future[dict[str, Any]]
    ) -> dict[str, Any] | None:
        limit = self.config.kill_grace_ms / 1000 + KILL_MARGIN_S
        done, _ = await asyncio.wait({waiter}, timeout=limit)  # never cancels the waiter
        return waiter.result() if done else None

    async def adopt(self: JobManager, job_id: str) -> JobRecord:
        """Deliberately take over another session's running job."""
        record = self.get(job_id)
        if self.is_own(record):
            return record
        record = self.registry.take_over(job_id)
        await self._attach(record)
        link = self._links.get(job_id)
        if link is not None and not record.detached and not self.persistent:
            with contextlib.suppress(LinkClosed, TimeoutError):
                pid = os.getpid()
                await link.request({"op": "owner", "pid": pid, "token": procs.start_token(pid)})
        return record

    async def clear(
        self: JobManager, job_id: str | None = None, all: bool = False
    ) -> list[JobRecord]:
        """Remove finished own records (one, or all); `all` also kills and removes running ones."""
        if job_id is not None:
            record = self.get(job_id)
            if not self.is_own(record):
                raise Refused(f"{job_id} is another session's job; not cleared.", "id")
            if record.running and not all:
                raise Refused(f"{job_id} is still running; kill it first or pass all.", "id")
            targets = [record]
        else:
            targets = [r for r in self.jobs(include_peers=False) if all or not r.running]
        for record in targets:
            if record.running:
                await self._kill_quietly(record.id)
        cleared = self.registry.remove([r.id for r in targets])
        for record in cleared:
            link = self._links.pop(record.id, None)
            if link is not None:
                await link.close()
            self._finished.pop(record.id, None)
        return cleared

    def pending_reports(self: JobManager) -> list[JobRecord]:
        """Own finished jobs whose finish has not been reported (seen) yet."""
        return [r for r in self.jobs(include_peers=False) if not r.running and not r.seen]

    def take_reports(self: JobManager) -> list[JobRecord]:
        reports = self.pending_reports()
        for record in reports:
            record.seen = True
        if reports:
            self.registry.mark_dirty()
        return reports
