"""The exec / process vocabulary (seeds/003) as a thin facade over JobManager.

    tools = ProcessTools(manager)
    r = await tools.exec(command="npm run build", yieldMs=1000)
    r = await tools.process(action="poll", sessionId=r["sessionId"])

Each call returns a JSON-ready dict with a model-facing `text` and the details;
bad input comes back as `{"status": "error", "error": ..., "field": ...}` before
any side effect. `poll` drains output through the session's unread cursor (shared
with the exec_command vocabulary: one reader per session).
"""

from __future__ import annotations

import os
from typing import Any

from jobs_tui.engine.calls.callschema import MAX_LINES
from jobs_tui.engine.calls.schemacheck import clip
from jobs_tui.engine.calls.toolschemas import EXEC, PROCESS
from jobs_tui.engine.logs.rawtail import LAST_LINE_BYTES, last_row, raw_tail
from jobs_tui.engine.records.format import duration, earlier_note
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.results import JobError, Refused
from jobs_tui.engine.registry.safefiles import open_regular
from jobs_tui.engine.session.ttyoutput import screen_text

from .common import (
    derive_name,
    elapsed_ms,
    error_result,
    job_id_from,
    merge_fields,
    resolve_name,
    state,
)
from .cursors import Facade
from .keys import application_cursor_mode, bracketed_paste, encode_keys
from .validation import ToolInputError, check, clamp, quote

YIELD_DEFAULT_MS, YIELD_MIN_MS, YIELD_MAX_MS = 10_000, 10, 120_000
TIMEOUT_DEFAULT_S = 1800
POLL_WAIT_MAX_MS = 30_000
LOG_TAIL_LINES = 200
KEY_MODE_TAIL = 64 * 1024  # bytes of raw output searched for the cursor-key mode


def status_word(record: JobRecord) -> str:
    """The process vocabulary's status: running, completed or failed."""
    if record.running:
        return "running"
    return "completed" if state(record) == "exited" else "failed"


def exit_text(record: JobRecord) -> str:
    if record.running:
        return "Process still running."
    if record.signal:
        return f"Process exited with signal {record.signal}."
    if record.exit_code is None:
        return "Process exited; its exit code was not recorded."
    return f"Process exited with code {record.exit_code}."


class ProcessTools(Facade):
    """`exec` and `process` over one JobManager."""

    async def call(self, tool: str, args: Any = None) -> dict[str, Any]:
        action = args.get("action") if isinstance(args, dict) else None
        try:
            v = resolve_name(self.jm, check_call(tool, args), "sessionId")
            if tool == "exec":
                return await self._exec(v)
            return await self._process(v)
        except (ToolInputError, JobError) as exc:
            name = clip(action) if isinstance(action, str) else clip(str(tool))
            result = error_result("action", name, exc)
            result["field"] = _FIELD_NAMES.get(result["field"], result["field"])
            result["text"] = str(exc)
            return result

    async def exec(self, args: Any = None, /, **fields: Any) -> dict[str, Any]:
        return await self.call("exec", merge_fields(args, fields))

    async def process(self, args: Any = None, /, **fields: Any) -> dict[str, Any]:
        return await self.call("process", merge_fields(args, fields))

    # -- exec ---------------------------------------------------------------------
    async def _exec(self, v: dict[str, Any]) -> dict[str, Any]:
        record = await self.jm.start(
            v["command"],
            stdin=True,
            timeout_ms=max(1, round(v.get("timeout", TIMEOUT_DEFAULT_S) * 1000)),
            cwd=v.get("workdir"),
            tty=bool(v.get("pty")),
            env=v.get("env") or None,
        )
        if not v.get("background"):
            wait_ms = clamp(v.get("yieldMs", YIELD_DEFAULT_MS), YIELD_MIN_MS, YIELD_MAX_MS)
            record = await self.jm.wait(record.id, int(wait_ms), report=False)
        unread = await self.cursors.read(record.id, self.output_cap)
        output = await screen_text(self.jm, record, unread, self.screen_delta)
        result: dict[str, Any] = {
            "action": "exec",
            "status": status_word(record),
            "sessionId": record.id,
            "name": derive_name(record.command),
            "pid": record.pid,
            "cwd": record.cwd,
            "output": output,
            "durationMs": elapsed_ms(record),
        }
        _truncation(result, unread.remaining, record.id)
        if record.running:
            result["text"] = (
                f"Command still running (session {record.id}, pid {record.pid}). Use process "
                "(list/poll/log/write/send-keys/kill/clear/remove) to follow up."
                + (f"\n\n{output}" if output else "")
            )
            return result
        if not unread.remaining:  # reported once all of its output was read
            record = await self.jm.status(record.id)
        result.update(exitCode=record.exit_code, exitSignal=record.signal, state=state(record))
        result["text"] = (output or "(no output)") + (
            "" if result["status"] == "completed" else f"\n\n{exit_text(record)}"
        )
        return result

    # -- process ------------------------------------------------------------------
    async def _process(self, v: dict[str, Any]) -> dict[str, Any]:
        action = v["action"]
        if action == "list":
            return await self._list()
        handler = getattr(self, "_" + action.replace("-", "_"))
        return await handler(v["job_id"], v)

    async def _list(self) -> dict[str, Any]:
        sessions = []
        for record in self.jm.jobs(include_peers=False):
            sessions.append(
                {
                    "sessionId": record.id,
                    "status": status_word(record),
                    "state": state(record),
                    "pid": record.pid,
                    "startedAt": record.started_at,
                    "endedAt": record.finished_at,
                    "runtimeMs": elapsed_ms(record),
                    "cwd": record.cwd,
                    "command": record.command,
                    "name": derive_name(record.command),
                    "tail": await self._last_line(record),
                    "exitCode": record.exit_code,
                    "exitSignal": record.signal,
                }
            )
        lines = [
            f"{s['sessionId']} {s['status']:<9} {duration(s['runtimeMs']):>7} :: {s['name']}"
            for s in sessions
        ]
        return {
            "action": "list",
            "status": "completed",
            "sessions": sessions,
            "text": "\n".join(lines) or "No running or recent sessions.",
        }

    async def _last_line(self, record: JobRecord) -> str:
        """A terminal job's: the last row of its screen (with a renderer); else the record's."""
        if self.render is None or not record.tty:
            return record.last_line
        try:
            return last_row(self.render(await raw_tail(self.jm, record.id, LAST_LINE_BYTES)))
        except (JobError, OSError):
            return record.last_line

    async def _poll(self, job_id: str, v: dict[str, Any]) -> dict[str, Any]:
        wait_ms = clamp(v.get("timeout", 0), 0, POLL_WAIT_MAX_MS)
        record = self.jm.get(job_id)
        if wait_ms and record.running:
            record = await self.jm.wait(job_id, int(wait_ms), report=False)
        unread = await self.cursors.read(job_id, self.output_cap)
        if not record.running and not unread.remaining:  # reported once all of it was read
            record = await self.jm.status(job_id)
        output = await screen_text(self.jm, record, unread, self.screen_delta)
        result = self._base("poll", record)
        result["output"] = output
        if not record.running:
            result.update(exitCode=record.exit_code, exitSignal=record.signal)
        _truncation(result, unread.remaining, job_id)
        if unread.skipped:
            result["skippedBytes"] = unread.skipped
        body = output.rstrip("\n") or "(no new output)"
        result["text"] = f"{body}\n\n{exit_text(record)}"
        return result

    async def _log(self, job_id: str, v: dict[str, Any]) -> dict[str, Any]:
        offset, limit = v.get("offset"), v.get("limit")
        record = self.jm.get(job_id)
        hint = ""
        if self.render is not None and record.tty:  # its screen's rows, paged the same way
            rows = self.render(await raw_tail(self.jm, job_id))
            total = len(rows)
            first = max(0, total - (limit or LOG_TAIL_LINES)) if offset is None else offset
            lines = rows[first : first + limit] if limit else rows[first:]
            if offset is None and limit is None and first:
                hint = (
                    f"\n\n[showing last {len(lines)} of {total} lines; pass offset/limit to page]"
                )
        elif offset is None and (limit or LOG_TAIL_LINES) <= MAX_LINES:
            count = limit or LOG_TAIL_LINES
            tail = await self.jm.logs(job_id, lines=count)
            lines, first = tail.lines, tail.earlier_lines
            total = None if first is None else first + len(lines)
            if limit is None and tail.truncated:
                shown = f"last {len(lines)} of {total}" if total is not None else "last"
                more = "" if total is not None else f" ({earlier_note(None, tail.earlier_bytes)})"
                hint = f"\n\n[showing {shown} lines{more}; pass offset/limit to page]"
        else:
            if offset is None:  # the last `limit` lines, more than one tail read gives
                count_only = await self.jm.page(job_id, 0, 0)
                offset = max(0, (count_only.total_lines or 0) - (limit or 0))
            page = await self.jm.page(job_id, offset, limit)
            lines, first, total = page.lines, offset, page.total_lines
        result = self._base("log", record)
        text = "\n".join(lines)
        result.update(output=text, offset=first, lines=len(lines), totalLines=total)
        result["text"] = (text or "(no output yet)") + hint
        return result

    async def _write(self, job_id: str, v: dict[str, Any]) -> dict[str, Any]:
        data = v.get("data", "").encode("utf-8", "surrogateescape")
        eof = bool(v.get("eof"))
        reply = await self.jm.send_bytes(job_id, data, eof=eof)
        closed = " (stdin closed)" if reply["stdinClosed"] else ""
        return self._sent("write", reply, f"Wrote {reply['sent']} bytes to {job_id}{closed}.")

    async def _send_keys(self, job_id: str, v: dict[str, Any]) -> dict[str, Any]:
        application = application_cursor_mode(self._raw_tail(job_id))
        data = encode_keys(v.get("keys"), v.get("hex"), v.get("literal"), application=application)
        reply = await self.jm.send_bytes(job_id, data)
        return self._sent("send-keys", reply, f"Sent {len(data)} bytes to {job_id}.")

    async def _submit(self, job_id: str, v: dict[str, Any]) -> dict[str, Any]:
        reply = await self.jm.send_bytes(job_id, b"\r")
        return self._sent("submit", reply, f"Submitted {job_id} (sent CR).")

    async def _paste(self, job_id: str, v: dict[str, Any]) -> dict[str, Any]:
        text = v["text"]
        reply = await self.jm.send_bytes(job_id, bracketed_paste(text, v.get("bracketed", True)))
        return self._sent("paste", reply, f"Pasted {len(text)} chars to {job_id}.")

    async def _kill(self, job_id: str, v: dict[str, Any]) -> dict[str, Any]:
        record = self.jm.get(job_id)
        if not record.running:
            raise Refused(f"{job_id} has already finished; nothing to kill", "sessionId")
        outcome = await self.jm.kill(job_id, "SIGTERM")
        record = await self.jm.status(job_id)
        result = self._base("kill", record)
        result["killed"] = not record.running
        if outcome.adopted:
            result["adopted"] = True
        result["text"] = (
            f"Killed {job_id}." if not record.running else f"Termination requested for {job_id}."
        )
        return result

    async def _clear(self, job_id: str, v: dict[str, Any]) -> dict[str, Any]:
        return await self._drop("clear", job_id, running_too=False)

    async def _remove(self, job_id: str, v: dict[str, Any]) -> dict[str, Any]:
        return await self._drop("remove", job_id, running_too=True)

    async def _drop(self, action: str, job_id: str, running_too: bool) -> dict[str, Any]:
        record = self.jm.get(job_id)
        cleared = await self.jm.clear(job_id, all=running_too)
        self.cursors.forget([r.id for r in cleared])
        result = self._base(action, record)
        result["status"] = "completed"
        verb = "Removed" if action == "remove" else "Cleared"
        result["text"] = f"{verb} {job_id}."
        return result

    # -- helpers ------------------------------------------------------------------
    def _base(self, action: str, record: JobRecord) -> dict[str, Any]:
        return {
            "action": action,
            "status": status_word(record),
            "state": state(record),
            "sessionId": record.id,
            "name": derive_name(record.command),
        }

    def _sent(self, action: str, reply: dict[str, Any], text: str) -> dict[str, Any]:
        result = self._base(action, reply["job"])
        result.update(bytes=reply["sent"], stdinClosed=reply["stdinClosed"], text=text)
        return result

    def _raw_tail(self, job_id: str) -> bytes:
        """The end of the raw terminal stream (never shown; only searched for DECCKM)."""
        try:
            live, _previous = self.jm.log_files(self.jm.get(job_id))
            fd = open_regular(live)  # never a FIFO or symlink planted as the log
            try:
                size = os.fstat(fd).st_size
                return os.pread(fd, KEY_MODE_TAIL, max(0, size - KEY_MODE_TAIL))
            finally:
                os.close(fd)
        except (OSError, JobError):
            return b""


_FIELD_NAMES = {"id": "sessionId", "cwd": "workdir", "timeoutMs": "timeout"}


def check_call(tool: str, args: Any) -> dict[str, Any]:
    """Every check of a call's input, before anything acts: the schema's rules, then the
    keys encoded once to be sure they can be. Adds `job_id` for a process action."""
    if tool == "exec":
        return check(EXEC, args, "exec")
    if tool != "process":
        raise ToolInputError(f"unknown tool {quote(tool)}", "tool")
    v = check(PROCESS, args, "process")
    if "sessionId" in v:
        v["job_id"] = job_id_from(v["sessionId"], "sessionId")
    if v["action"] == "send-keys":
        encode_keys(v.get("keys"), v.get("hex"), v.get("literal"))
    return v


def _truncation(result: dict[str, Any], remaining: int, job_id: str) -> None:
    if remaining:
        result["truncated"] = True
        result["unreadBytes"] = remaining
        result["note"] = f"{remaining} more bytes are unread; poll {job_id} again for them"
