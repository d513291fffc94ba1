"""The `job` tool's `logs` of a terminal job, rendered, and `raw` of any job.

The engine never imports a terminal emulator: a host that has one (the MCP server,
`jobs_tui.term`) hands `JobTools` a `TtyRenderer`, and a `tty` job's tail is then the
rows its terminal shows (scrollback, then the screen) instead of its sanitized bytes,
which for a full-screen program are escape soup (vim's `~` rows run into one line, its
width probes kept). `raw: true` gives the bytes as written, escapes and all, each
control character but newline and tab spelled out (`\\x1b[?1049h`, a backslash as `\\\\`):
a tool result is shown by clients in their own terminal, where a real ESC would act, and
read by models, which need to see it. (`jobs-tui logs --raw` writes the bytes themselves.)

`grep`, `since` and `timestamps` of a terminal job read its rows too when the renderer
can date them (a `TtyDater`, as the MCP server's is): grep searches every row the
retained log made final, `since`/`timestamps` the rows of its tail, each dated by the
bytes that made it final (`engine.logs.ttysearch`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jobs_tui.engine.logs.rawtail import (
    LAST_LINE_BYTES,
    RAW_TAIL_BYTES,
    SEARCH_BYTES,
    TtyRenderer,
    last_row,
    raw_tail,
)
from jobs_tui.engine.records.results import JobError
from jobs_tui.engine.records.sanitize import spell_controls as visible

if TYPE_CHECKING:
    from jobs_tui.engine.session.manager import JobManager

    from .job import JobCall


def _tail_lines(rows: list[str], count: int) -> tuple[list[str], int]:
    shown = rows[-count:] if count else rows
    return shown, len(rows) - len(shown)


async def rendered_logs(
    manager: JobManager, call: JobCall, render: TtyRenderer | None
) -> dict[str, Any] | None:
    """The details of a `logs` call answered here (`raw`, or a terminal job's text with a
    renderer, without grep/since/timestamps); None: the usual sanitized tail."""
    job_id = call.id or ""
    record = manager.get(job_id)
    if not call.raw and (render is None or not record.tty):
        return None
    if not call.raw and (call.grep is not None or call.since_ms is not None or call.timestamps):
        if not (hasattr(render, "dated") and hasattr(render, "history")):
            return None  # a renderer that cannot date rows: the bytes' lines, as before
        return await _dated_logs(manager, call, render)
    tail = await raw_tail(manager, job_id, RAW_TAIL_BYTES)
    count = call.lines or manager.config.max_log_lines
    details: dict[str, Any] = {"action": "logs", "job": manager.get(job_id).to_json()}
    if call.raw:
        text = tail.data.decode("utf-8", "replace")
        ended = text.endswith("\n")
        shown, earlier = _tail_lines(text.split("\n")[:-1] if ended else text.split("\n"), count)
        details["logs"] = visible("\n".join(shown) + ("\n" if ended and shown else ""))
        details["raw"] = True
    else:
        assert render is not None
        shown, earlier = _tail_lines(render(tail), count)
        details["logs"] = "\n".join(shown) + ("\n" if shown else "")
        details["rendered"] = True
    details["truncated"] = bool(earlier or tail.offset)
    if details["truncated"]:
        details["earlierBytes"] = tail.offset
        if earlier and not tail.offset:
            details["earlierLines"] = earlier
    return details


async def _dated_logs(manager: JobManager, call: JobCall, render: Any) -> dict[str, Any]:
    """grep/since/timestamps of a terminal job over its rendered, dated rows (the work,
    a whole log's emulation at most, runs off the event loop)."""
    import asyncio

    from jobs_tui.engine.calls.arguments import compile_regex
    from jobs_tui.engine.logs.ttysearch import dated_tail, search_rows

    from .job import _search, _stamp

    job_id = call.id or ""
    if call.grep is not None:
        pattern = compile_regex("grep", call.grep)
        tail = await raw_tail(manager, job_id, SEARCH_BYTES, dated=True)
        found = await asyncio.to_thread(
            lambda: search_rows(
                render.history(tail), pattern, context=call.context or 0, since_ms=call.since_ms
            )
        )
        details = {**_search(manager.get(job_id), found, call.timestamps), "rendered": True}
        if tail.capped:  # a terminal job's search is bounded: say what it left out
            details.update(truncated=True, earlierBytes=tail.offset)
            note = f"the {tail.offset} bytes before its last {len(tail.data)} not searched"
            details["note"] = f"{details['note']}; {note}" if details.get("note") else note
        return details
    tail = await raw_tail(manager, job_id, RAW_TAIL_BYTES, dated=True)
    count = call.lines or manager.config.max_log_lines
    got = await asyncio.to_thread(dated_tail, tail, render.dated, count, call.since_ms)
    texts = [(_stamp(r.at_ms) if call.timestamps else "") + r.text for r in got.rows]
    details: dict[str, Any] = {"action": "logs", "job": manager.get(job_id).to_json()}
    details["logs"] = "\n".join(texts) + ("\n" if texts else "")
    details["rendered"] = True
    details["truncated"] = got.truncated
    if got.truncated:
        details["earlierBytes"] = got.earlier_bytes
        if got.earlier and not got.earlier_bytes:
            details["earlierLines"] = got.earlier
    return details


async def screen_last_lines(
    manager: JobManager, details: dict[str, Any], render: TtyRenderer | None
) -> None:
    """A terminal job's `lastLine` in `details` (its `job`, its `jobs`) as the last row of
    its screen, rendered from the log's last LAST_LINE_BYTES; left as it is when the log
    cannot be read."""
    if render is None:
        return
    jobs = [details.get("job"), *(details.get("jobs") or [])]
    for job in jobs:
        if not (isinstance(job, dict) and job.get("tty") and isinstance(job.get("id"), str)):
            continue
        try:
            job["lastLine"] = last_row(render(await raw_tail(manager, job["id"], LAST_LINE_BYTES)))
        except (JobError, OSError):
            continue
