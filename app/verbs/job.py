"""The `job` verbs of the command line: start, list, status, logs, send, kill, clear, wait.

Each one calls `JobManager`'s typed methods, which check their arguments themselves
(`engine/calls/arguments.py`: an `InvalidArgument` naming the field, before anything is done),
and prints either a human line or, with `--json`, the JobDetails of the call. Errors
are raised as the engine's exceptions; `cli` maps them to exit codes and to the flags
as typed. No vocabulary (`engine/tools/`) is involved.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.calls.arguments import check

from .. import jsonout, printing
from ..argcheck import not_utf8
from ..errors import (
    EXIT_ERROR,
    EXIT_REFUSED,
    EXIT_USAGE,
    VerbError,
)
from ..jsonout import emit_result
from . import human
from .reads import list_result, status_result

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager
    from jobs_tui.engine.records.results import LogsResult

SEND_CHUNK = 64 * 1024
FOLLOW_POLL_MS = 200  # a follower's look at a quiet log
BUSY_POLL_MS = 20  # and at one that just gave output: a writer ahead rotates less past it
FOLLOW_CAP = 1 << 20  # bytes one read of a follower takes at most


async def start(jm: JobManager, args: argparse.Namespace) -> int:
    record = await jm.start(
        args.words,
        label=args.label,
        stdin=args.stdin,
        timeout_ms=args.timeout_ms,
        wake=True if args.wake else None,
        detached=True if args.detached else None,
        cwd=args.cwd,
        tty=args.tty,
        cols=args.cols,
        rows=args.rows,
        env=args.env,
    )
    return emit_result(args, {"job": record.to_json()}, human.start_line(record))


async def list_jobs(jm: JobManager, args: argparse.Namespace) -> int:
    records = await jm.list(all=args.all)
    problems = jm.take_problems()
    return list_result(
        args, records, jm.session_id, problems, jm.pruned, jm.config.max_jobs, jm.paths
    )


async def status(jm: JobManager, args: argparse.Namespace) -> int:
    return status_result(args, await jm.status(args.id), jm.paths)


async def logs(jm: JobManager, args: argparse.Namespace) -> int:
    from .tty_logs import renders, tty_logs

    record = jm.get(args.id)
    args.id = record.id  # a declared name: its current job, for the whole read (a follow too)
    if renders(args, record.tty):
        if args.follow:
            from .tty_follow import tty_follow

            return await tty_follow(jm, args)
        return await tty_logs(jm, args)
    if args.grep is not None:
        from .search import grep

        return await grep(jm, args)
    start = 0
    if args.follow and (args.offset is not None or args.limit is not None):
        start = await jm.log_end(args.id)  # before the page: nothing written meanwhile is lost
    if args.offset is not None or args.limit is not None:
        jm.get(args.id)
        page = await jm.page(args.id, args.offset or 0, args.limit)
        details: dict[str, Any] = {
            "job": page.job.to_json(),
            "logs": page.text + ("\n" if page.text else ""),
            "offset": page.offset,
            "totalLines": page.total_lines,
            "truncated": bool(page.truncated),
        }
    else:
        wanted: dict[str, Any] = {}  # since/timestamps only when asked
        if args.since_ms is not None:
            wanted["since_ms"] = args.since_ms
        if args.timestamps:
            wanted["timestamps"] = True
        result = await jm.logs(args.id, args.lines, **wanted)
        details = result.details()
        shown, times = result.lines, list(result.times)
        if args.follow:  # on from exactly where the tail ends: nothing twice, nothing lost
            start, cut = _follow_start(result, args.json)
            if cut:
                details["logs"] = details["logs"][: details["logs"].rfind("\n") + 1]
                shown, times = shown[:-1], times[:-1]
        if args.timestamps:
            details["times"] = times
    if not args.follow:
        lines = human.logs_lines(details)
        if args.timestamps and details.get("logs"):
            from .search import stamped

            lines[-1] = "\n".join(stamped(shown, details["times"]))
        return emit_result(args, details, lines)
    emit_result(args, {**details, "following": True}, human.logs_lines(details), None)
    return await follow(jm, args, start)


def _follow_start(result: LogsResult, json_mode: bool) -> tuple[int, bool]:
    """Where following goes on after a tail, and whether the tail's unfinished last line
    is left to the follower. Text mode leaves it (printed whole, not cut by a newline
    between tail and follow); JSON goes on right after it (the chunks concatenate)."""
    assert result.position is not None
    if json_mode or not result.partial_bytes:
        return result.position, False
    return result.position - result.partial_bytes, True


async def follow(jm: JobManager, args: argparse.Namespace, offset: int) -> int:
    """Print what the job writes after `offset`, until it finishes (Ctrl-C stops following).

    With --json, one `logs` object per batch (`exit` null, `following` true), then one
    with the final record and the exit status. A reader that left ends it at once.
    Output that did not end its last line gets a newline, so the outcome has its own.

    Bytes that rotated away before they were read are said, never silently lost: in
    text mode `jobs-tui: N bytes rotated away unread` on stderr before what follows
    the gap, with --json a `skipped` field (bytes) on the object after it. The lines
    printed are whole (`WholeLines`), so printed + skipped = what the job wrote."""
    from jobs_tui.engine.logs.wholelines import WholeLines

    lines = WholeLines(jm.follow(args.id, offset))
    ended_line = True
    gap = 0  # bytes rotated away since the last text printed
    busy = True  # the last round printed something (or none yet ran): look again soon
    while True:
        record = await jm.wait(args.id, BUSY_POLL_MS if busy else FOLLOW_POLL_MS)
        busy = False
        while True:
            got = await asyncio.to_thread(lines.read, record.running, FOLLOW_CAP)
            gap += got.skipped
            if got.text:
                busy = True
                if args.json:
                    chunk = {"job": jm.get(args.id).to_json(), "logs": got.text, "following": True}
                    jsonout.emit("logs", None, args.session, {**chunk, **_skipped(gap)})
                else:
                    _say_gap(gap)
                    printing.write(got.text)
                    ended_line = got.text.endswith("\n")
                gap = 0
            if not got.more:
                break
        if printing.stdout_closed():  # the reader left (`| grep -m1 ready`): so do we
            raise BrokenPipeError
        if not record.running:
            final = {"job": record.to_json(), "logs": "", "following": False}
            if not ended_line and not args.json:
                printing.write("\n")
            if not args.json:
                _say_gap(gap)
            final.update(_skipped(gap))
            return emit_result(args, final, human.outcome_line(record, human.now_ms()))


def _skipped(gap: int) -> dict[str, int]:
    return {"skipped": gap} if gap else {}


def _say_gap(gap: int) -> None:
    if gap:
        printing.err(f"jobs-tui: {gap} bytes rotated away unread")


async def send(jm: JobManager, args: argparse.Namespace) -> int:
    if args.text == "-":
        data = sys.stdin.buffer.read()
        jm.get(args.id)
        sent, closed, record = 0, False, None
        for at in range(0, max(len(data), 1), SEND_CHUNK):
            last = at + SEND_CHUNK >= len(data)
            reply = await jm.send_bytes(args.id, data[at : at + SEND_CHUNK], eof=args.eof and last)
            sent, closed, record = sent + reply["sent"], reply["stdinClosed"], reply["job"]
        assert record is not None
        details = {"job": record.to_json(), "sent": sent, "stdinClosed": closed}
    else:
        if args.text is None and not args.eof:
            message = "send needs TEXT (or - to read stdin), or --eof"
            raise VerbError(message, EXIT_USAGE, field="TEXT")
        if args.text is not None and not_utf8(args.text):
            details = await send_bytes_typed(jm, args)
        else:
            sent = await jm.send(args.id, args.text, newline=not args.no_newline, eof=args.eof)
            details = {
                "job": sent["job"].to_json(),
                "sent": sent["sent"],
                "stdinClosed": sent["stdinClosed"],
            }
    return emit_result(args, details, human.send_line(details))


async def send_bytes_typed(jm: JobManager, args: argparse.Namespace) -> dict[str, Any]:
    """TEXT that is not UTF-8 goes to the job as the very bytes typed (surrogateescape)."""
    from jobs_tui.engine.calls.callschema import MAX_INPUT

    data = os.fsencode(args.text)
    if len(data) > MAX_INPUT:
        message = f"TEXT is {len(data)} bytes; the limit is {MAX_INPUT}"
        raise VerbError(message, EXIT_USAGE, field="TEXT")
    check("id", args.id)
    payload = data + (b"" if args.no_newline else b"\n")
    reply = await jm.send_bytes(args.id, payload, eof=args.eof)
    return {"job": reply["job"].to_json(), "sent": len(data), "stdinClosed": reply["stdinClosed"]}


async def kill(jm: JobManager, args: argparse.Namespace) -> int:
    """Exit 0 once the tree is gone; 4 for a job that had finished; 1 if it outlived the grace."""
    result = await jm.kill(args.id, args.signal)
    details: dict[str, Any] = {
        "job": result.job.to_json(),
        "signalled": result.signalled,
        "signal": args.signal,
        "adopted": bool(result.adopted),
        "escalated": bool(result.escalated),
        "processes": int(result.processes or 0),
        "leftoversKilled": int(result.leftovers or 0),
    }
    if result.note:
        details["note"] = result.note
    if not result.signalled and not result.leftovers:
        message = result.note or f"{args.id} had already finished; nothing was killed"
        raise VerbError(message, EXIT_REFUSED, {"job": details["job"]}, field="ID")
    if result.job.running or result.job.remaining_processes:
        message = f"{args.id} is still running after the grace period"
        raise VerbError(message, EXIT_ERROR, {"job": details["job"]}, field="ID")
    return emit_result(args, details, human.kill_line(details))


async def restart(jm: JobManager, args: argparse.Namespace) -> int:
    """Kill the job if it runs (the normal grace), start the same command as a new id."""
    check("id", args.id)
    record = await jm.restart(args.id)
    details = {"job": record.to_json(), "restartOf": args.id}
    return emit_result(
        args, details, f"{human.start_line(record)} · restart of {human.safe(args.id, 20)}"
    )


async def clear(jm: JobManager, args: argparse.Namespace) -> int:
    """Finished own records (one, or all); `--all` also kills and removes running ones."""
    from jobs_tui.engine.logs.unread import UnreadCursors

    check("id", args.id)
    cleared = await jm.clear(args.id, all=args.all)
    details = {"jobs": [r.to_json() for r in cleared], "cleared": len(cleared)}
    with contextlib.suppress(OSError):  # cleared already: a cursor file the disk refused
        # is no reason to report the clear as failed
        UnreadCursors.shared(jm).forget([r.id for r in cleared])
    code = emit_result(args, details, human.clear_lines(details))
    kept = [r.id for r in jm.jobs(include_peers=False) if not r.running and r.remaining_processes]
    if kept and args.id is None and not args.json:  # finished, but not done: said, on stderr
        printing.err(
            f"jobs-tui: not cleared, processes of them still run: {', '.join(kept[:10])} "
            "(`jobs-tui kill ID`, or `clear --all`)"
        )
    return code
