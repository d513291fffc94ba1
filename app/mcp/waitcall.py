"""One `job_wait` call over MCP: progress heartbeats while it blocks, and a wait cut short
of the client's own timeout (`waitcap`).

Heartbeats: when the request carries `_meta.progressToken`, `notifications/progress`
once a second (elapsed seconds, the waited jobs' status and last line). A client that
resets its timer on progress (opencode) then never times out; one that does not (Codex,
Gemini CLI, Claude Code) gets its answer before its limit instead: `reason: timeout`,
the job left running, the text saying to call job_wait again. A cancelled wait ends
here; the job keeps running.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import TYPE_CHECKING, Any

import anyio

from jobs_tui.engine.calls.callschema import DEFAULT_WAIT_MS
from jobs_tui.engine.records.sanitize import sanitize_line

from ..tty.text import shown_last_line
from .waitcap import wait_cap_s

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from jobs_tui.engine import JobManager
    from jobs_tui.engine.tools import JobTools

PROGRESS_INTERVAL_S = 1.0


def client_name(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """`clientInfo.name` from the client's `initialize`, if it sent one."""
    params = getattr(ctx.session, "client_params", None)
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    return name if isinstance(name, str) else None


def has_progress_token(ctx: ServerRequestContext[Any, Any]) -> bool:
    raw = ctx.params.get("_meta") if isinstance(ctx.params, dict) else None
    if isinstance(raw, dict) and raw.get("progressToken") is not None:
        return True
    meta = ctx.meta
    return isinstance(meta, dict) and meta.get("progress_token") is not None


def capped(call: dict[str, Any], cap_s: float | None) -> dict[str, Any]:
    """The call with its timeoutMs no longer than the cap (the default counts as asked)."""
    if cap_s is None:
        return call
    asked = call.get("timeoutMs")
    if asked is None:
        asked = DEFAULT_WAIT_MS
    whole = isinstance(asked, int) or (isinstance(asked, float) and asked.is_integer())
    if whole and not isinstance(asked, bool) and asked > cap_s * 1000:
        return {**call, "timeoutMs": int(cap_s * 1000)}
    return call  # within the cap, or not a number: the validator's to refuse


async def run_wait(
    jm: JobManager,
    job_tools: JobTools,
    ctx: ServerRequestContext[Any, Any],
    args: dict[str, Any],
    call: dict[str, Any],
) -> dict[str, Any]:
    """job_wait: the engine's wait, capped for the client, with heartbeats."""
    cap = wait_cap_s(client_name(ctx), has_progress_token(ctx), os.environ)
    call = capped(call, cap)
    ids = args.get("ids") if isinstance(args.get("ids"), list) else [args.get("id")]
    ids = [i for i in ids if isinstance(i, str)]
    started = time.monotonic()
    timeout = call.get("timeoutMs")
    total = timeout / 1000 if isinstance(timeout, int) and timeout > 0 else None

    async def report() -> None:
        while True:
            elapsed = time.monotonic() - started
            message = progress_text(jm, ids, elapsed)
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await ctx.session.report_progress(round(elapsed, 3), total, message)
            await anyio.sleep(PROGRESS_INTERVAL_S)

    async with anyio.create_task_group() as group:
        group.start_soon(report)
        try:
            return await job_tools.call(call)
        finally:
            group.cancel_scope.cancel()


def progress_text(jm: JobManager, ids: list[str], elapsed: float) -> str:
    """`waited 3.0s · j1 running, last line: …` (no ids: the session's running jobs)."""
    parts = [f"waited {elapsed:.1f}s"]
    if not ids:
        ids = [r.id for r in jm.jobs(include_peers=False) if r.running]
    for job_id in ids[:5]:
        record = jm.find(job_id)
        if record is None:
            continue
        if record.tty:  # its screen's last row, not its bytes' (a few ms)
            record = shown_last_line(jm.paths, record)
        last = sanitize_line(record.last_line or "", 160)
        parts.append(f"{job_id} {record.status.value}" + (f", last line: {last}" if last else ""))
    return " · ".join(parts)
