"""The exec_command / write_stdin vocabulary (seeds/000) as a thin facade over JobManager.

    tools = ExecCommandTools(manager)
    r = await tools.exec_command(cmd="npm test", yield_time_ms=1000)
    r = await tools.write_stdin(session_id=r["session_id"], yield_time_ms=0)

Every method takes a dict (or keywords) and returns a JSON-ready dict; bad input
comes back as `{"status": "error", "error": ..., "field": ...}` before any side
effect, never as an exception. Output is read through one unread cursor per
session, bounded per call (`output_truncated` and a note say what is left).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.calls.schemacheck import clip
from jobs_tui.engine.calls.toolschemas import (
    EXEC_COMMAND,
    KILL_SESSION,
    LIST_SESSIONS,
    SET_ON_EXIT,
    WRITE_STDIN,
)
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.results import JobError, Refused
from jobs_tui.engine.registry.outcomes import failure as record_failure
from jobs_tui.engine.registry.outcomes import supervision
from jobs_tui.engine.session.ttyoutput import screen_text

from .common import (
    elapsed_ms,
    error_result,
    iso_utc,
    job_id_from,
    merge_fields,
    parse_utc,
    resolve_name,
    state,
    wait_until,
)
from .cursors import Facade
from .keys import parse_escapes
from .validation import ToolInputError, check, clamp, quote

if TYPE_CHECKING:
    from jobs_tui.engine.session.manager import JobManager

YIELD_MIN_MS, YIELD_MAX_MS, YIELD_DEFAULT_MS = 250, 30_000, 10_000
INPUT_YIELD_MS = 250
EMPTY_POLL_MIN_MS, EMPTY_POLL_MAX_MS = 5_000, 600_000
TIMEOUT_DEFAULT_S = 1800
MAX_ABSOLUTE_WAIT_MS = 24 * 3600 * 1000

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class ExecCommandTools(Facade):
    """exec_command, write_stdin, list_sessions, set_on_exit and kill_session."""

    def __init__(self, manager: JobManager, **options: Any) -> None:
        super().__init__(manager, **options)
        self._stopping: set[str] = set()  # kills under way, so a second one waits for it

    async def call(self, tool: str, args: Any = None) -> dict[str, Any]:
        """Dispatch by tool name, as a host that registered all five does."""
        handlers: dict[str, Handler] = {
            "exec_command": self._exec_command,
            "write_stdin": self._write_stdin,
            "list_sessions": self._list_sessions,
            "set_on_exit": self._set_on_exit,
            "kill_session": self._kill_session,
        }
        handler = handlers.get(tool)
        if handler is None:
            unknown = ToolInputError(f"unknown tool {quote(tool)}", "tool")
            return error_result("operation", clip(str(tool)), unknown)
        try:
            return await handler(resolve_name(self.jm, check_call(tool, args), "session_id"))
        except (ToolInputError, JobError) as exc:
            result = error_result("operation", tool, exc)
            # the engine's names for what this vocabulary calls otherwise
            result["field"] = _FIELD_NAMES.get(result["field"], result["field"])
            return result

    async def exec_command(self, args: Any = None, /, **fields: Any) -> dict[str, Any]:
        return await self.call("exec_command", merge_fields(args, fields))

    async def write_stdin(self, args: Any = None, /, **fields: Any) -> dict[str, Any]:
        return await self.call("write_stdin", merge_fields(args, fields))

    async def list_sessions(self, args: Any = None, /, **fields: Any) -> dict[str, Any]:
        return await self.call("list_sessions", merge_fields(args, fields))

    async def set_on_exit(self, args: Any = None, /, **fields: Any) -> dict[str, Any]:
        return await self.call("set_on_exit", merge_fields(args, fields))

    async def kill_session(self, args: Any = None, /, **fields: Any) -> dict[str, Any]:
        return await self.call("kill_session", merge_fields(args, fields))

    # -- exec_command -------------------------------------------------------------
    async def _exec_command(self, v: dict[str, Any]) -> dict[str, Any]:
        yield_ms = clamp(v.get("yield_time_ms", YIELD_DEFAULT_MS), YIELD_MIN_MS, YIELD_MAX_MS)
        timeout_ms = round(v.get("timeout_seconds", TIMEOUT_DEFAULT_S) * 1000)
        record = await self.jm.start(
            v["cmd"],
            stdin=True,
            timeout_ms=max(1, timeout_ms),
            wake=v.get("on_exit", "none") == "wake",
            cwd=v.get("workdir"),
            tty=bool(v.get("tty")),
            env=v.get("env") or None,
        )
        record = await self.jm.wait(record.id, int(yield_ms), report=False)
        status = "completed" if not record.running else "deadline"
        return await self._collect("exec_command", record, "relative", status)

    # -- write_stdin --------------------------------------------------------------
    async def _write_stdin(self, v: dict[str, Any]) -> dict[str, Any]:
        job_id, data, until_ms = v["job_id"], v["input_bytes"], v.get("until_ms")
        record = self.jm.get(job_id)
        eof = bool(v.get("end_stdin"))
        if eof and record.tty:
            raise ToolInputError(
                "end_stdin is not valid for a PTY session; send \\x04 (Ctrl-D) in chars instead",
                "end_stdin",
            )
        if "cols" in v and not record.tty:
            raise ToolInputError(f"session {record.number} is not a PTY; nothing to resize", "cols")
        acts = bool(data) or eof or "cols" in v
        if acts and not record.running:
            raise Refused(f"session {record.number} has already exited; nothing was sent", "id")
        written, closed = 0, False
        if "cols" in v:
            await self.jm.resize(job_id, v["cols"], v["rows"])
        if data or eof:
            reply = await self.jm.send_bytes(job_id, data, eof=eof)
            written, closed = reply["sent"], reply["stdinClosed"]
        record, mode, status = await self._wait(job_id, v, acts, until_ms)
        result = await self._collect("write_stdin", record, mode, status)
        if data or eof:
            result["bytes_written"] = written
            result["stdin_closed"] = closed
        return result

    async def _wait(
        self, job_id: str, v: dict[str, Any], acts: bool, until_ms: float | None
    ) -> tuple[JobRecord, str, str]:
        """(record, wait_mode, wait_status) after the wait the call asked for."""
        if until_ms is not None:
            record = await wait_until(self.jm, job_id, until_ms)
            return record, "absolute", "completed" if not record.running else "deadline"
        mode, ms = wait_plan(v.get("yield_time_ms"), acts)
        if mode == "immediate":
            record = self.jm.get(job_id)
            return record, mode, "completed" if not record.running else "snapshot"
        record = await self.jm.wait(job_id, ms, report=False)
        return record, mode, "completed" if not record.running else "deadline"

    async def _collect(
        self, operation: str, record: JobRecord, mode: str, wait_status: str
    ) -> dict[str, Any]:
        unread = await self.cursors.read(record.id, self.output_cap)
        if not record.running:
            self._stopping.discard(record.id)
            if not unread.remaining:  # the result is reported once its last byte went out
                record = await self.jm.status(record.id)  # which consumes the wake
        result: dict[str, Any] = {
            "operation": operation,
            "session_id": record.number,
            "job_id": record.id,
            "status": state(record),
            "running": record.running,
            "output": await screen_text(self.jm, record, unread, self.screen_delta),
            "log_path": record.log_path,
            "wait_mode": mode,
            "wait_status": wait_status,
        }
        if not record.running:
            result["exit_code"] = record.exit_code
            result["signal"] = record.signal
            failure = record_failure(record)
            if failure:
                result["failure"] = failure
        notes = []
        if unread.remaining:
            result["output_truncated"] = True
            result["unread_bytes"] = unread.remaining
            notes.append(
                f"{unread.remaining} more bytes of output are unread: read again with "
                f"write_stdin(session_id={record.number}, yield_time_ms=0), or see log_path"
            )
        if unread.skipped:
            result["output_skipped_bytes"] = unread.skipped
            notes.append(f"{unread.skipped} bytes rotated out of the log before they were read")
        if notes:
            result["note"] = "; ".join(notes)
        result["supervision"] = self.supervision(record, log_end=unread.end)
        return result

    # -- list_sessions, set_on_exit, kill_session -----------------------------------
    async def _list_sessions(self, v: dict[str, Any]) -> dict[str, Any]:
        sessions = []
        for record in self.jm.jobs(include_peers=False):
            sessions.append(
                {
                    "session_id": record.number,
                    "job_id": record.id,
                    "command": record.command,
                    "label": record.label,
                    "status": state(record),
                    "running": record.running,
                    "exit_code": record.exit_code,
                    "signal": record.signal,
                    "tty": record.tty,
                    "on_exit": "wake" if record.wake else "none",
                    "started_utc": iso_utc(record.started_at),
                    "elapsed_ms": elapsed_ms(record),
                    "output_bytes_total": record.log_bytes,
                    "unread_bytes": max(0, record.log_bytes - self.cursors.offset(record.id)),
                    "log_path": record.log_path,
                    "supervision": self.supervision(record),
                }
            )
        active = sum(s["running"] for s in sessions)
        completed = len(sessions) - active
        return {
            "operation": "list_sessions",
            "sessions": sessions,
            "active_count": active,
            "completed_count": completed,
            "just_exited_count": completed,
        }

    async def _set_on_exit(self, v: dict[str, Any]) -> dict[str, Any]:
        record = self.jm.get(v["job_id"])
        if not self.jm.is_own(record):
            raise Refused(f"session {record.number} is another session's job; unchanged", "id")
        record = await self.jm.set_wake(record.id, v["on_exit"] == "wake")
        return {
            "operation": "set_on_exit",
            "session_id": record.number,
            "job_id": record.id,
            "on_exit": v["on_exit"],
            "status": state(record),
            "running": record.running,
            "supervision": self.supervision(record),
        }

    async def _kill_session(self, v: dict[str, Any]) -> dict[str, Any]:
        job_id = v["job_id"]
        signal = v.get("signal", "SIGTERM")
        record = self.jm.get(job_id)
        result: dict[str, Any] = {"operation": "kill_session", "session_id": record.number}
        if not record.running:
            result.update(
                killed=False,
                escalated=False,
                note=f"session {record.number} had already exited",
            )
        else:
            self._stopping.add(job_id)
            outcome = await self.jm.kill(job_id, signal)
            record = outcome.job
            killed = not record.running
            result.update(
                killed=killed,
                escalated=outcome.escalated,
            )
            if outcome.adopted:
                result["adopted"] = True
            if killed:
                record = await self.jm.status(job_id)  # an explicit stop is not notified
            else:
                result["note"] = "the exit is not confirmed; the session stays owned"
        result.update(
            job_id=record.id,
            status=state(record),
            running=record.running,
            exit_code=record.exit_code,
            signal=record.signal,
            log_path=record.log_path,
            supervision=self.supervision(record),
        )
        return result

    # -- supervision ----------------------------------------------------------------
    def supervision(self, record: JobRecord, log_end: int | None = None) -> dict[str, Any]:
        """{state, stop_reason, deadline_utc, quiet_ms, log_bytes, log_truncated, cleanup}."""
        stopping = record.id in self._stopping
        return supervision(self.jm.paths, record, stopping=stopping, log_end=log_end)


_SCHEMAS = {
    "exec_command": EXEC_COMMAND,
    "write_stdin": WRITE_STDIN,
    "list_sessions": LIST_SESSIONS,
    "set_on_exit": SET_ON_EXIT,
    "kill_session": KILL_SESSION,
}
_FIELD_NAMES = {
    "id": "session_id",
    "command": "cmd",
    "cwd": "workdir",
    "timeoutMs": "timeout_seconds",
}


def check_call(tool: str, args: Any) -> dict[str, Any]:
    """Every check of a call's input, before anything acts (pure but for the clock).

    The schema's rules, then what no schema can say: a yield_until's calendar day and
    that it is at most 24 hours ahead. Adds `job_id`, `input_bytes` and `until_ms`.
    """
    schema = _SCHEMAS.get(tool)
    if schema is None:
        raise ToolInputError(f"unknown tool {quote(tool)}", "tool")
    v = check(schema, args, tool)
    if "session_id" in v:
        v["job_id"] = job_id_from(v["session_id"], "session_id")
    if tool == "write_stdin":
        v["input_bytes"] = _input_bytes(v)
        if "yield_until" in v:
            until_ms = parse_utc(v["yield_until"], "yield_until")
            if until_ms - time.time() * 1000 > MAX_ABSOLUTE_WAIT_MS:
                raise ToolInputError("yield_until is more than 24 hours ahead", "yield_until")
            v["until_ms"] = until_ms
    return v


def wait_plan(asked: float | None, acts: bool) -> tuple[str, int]:
    """("immediate", 0) or ("relative", ms) for a write_stdin without yield_until.

    With input: 250 ms by default, clamped to 250-30000. An empty read: an explicit 0 is
    immediate; omitted or positive waits at least 5 s (a fraction is not immediate).
    """
    if acts:
        return "relative", int(
            clamp(INPUT_YIELD_MS if asked is None else asked, YIELD_MIN_MS, YIELD_MAX_MS)
        )
    if asked == 0:
        return "immediate", 0
    low, high = EMPTY_POLL_MIN_MS, EMPTY_POLL_MAX_MS
    return "relative", int(clamp(low if asked is None else asked, low, high))


def _input_bytes(v: dict[str, Any]) -> bytes:
    """The bytes `chars` or `chars_b64` stand for (the schema already holds their form)."""
    if "chars" in v:
        return parse_escapes(v["chars"], "chars")
    if "chars_b64" in v:
        return base64.b64decode(v["chars_b64"], validate=True)
    return b""
