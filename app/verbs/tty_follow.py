"""`jobs-tui logs --follow` of a terminal job: its rows as they become final
(`term.rows.ScreenRows`: scrolled off, or above the cursor), then, once it ends, the
rest of its screen; never its escape bytes."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.logs.rawtail import RAW_TAIL_BYTES, raw_tail, read_sizes

from .. import jsonout, printing
from ..jsonout import emit_result
from . import human

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager
    from jobs_tui.engine.logs.follower import LogFollower
    from jobs_tui.term.rows import ScreenRows

FOLLOW_POLL_MS = 200  # as verbs.job.follow
BUSY_POLL_MS = 20
FOLLOW_CAP = 1 << 20


def _read(follower: LogFollower, rows: ScreenRows, live: str) -> tuple[list[str], int]:
    """Blocking: everything the log holds past the follower, fed (at the sizes the job's
    terminal had: its resizes are looked for again first); the final rows, and the bytes
    that rotated away unread before it."""
    out: list[str] = []
    skipped = 0
    rows.sizes = read_sizes(live) or rows.sizes
    while True:
        got = follower.read(FOLLOW_CAP)
        skipped += got.skipped
        if got.skipped:
            rows.at = got.offset
        if got.data:
            out += rows.feed(got.data)
        if got.offset + len(got.data) >= got.end or not got.data:
            return out, skipped


def _say(args: argparse.Namespace, jm: JobManager, lines: list[str], gap: int) -> None:
    if args.json:
        chunk: dict[str, Any] = {"job": jm.get(args.id).to_json(), "following": True}
        chunk.update(logs="\n".join(lines) + "\n", rendered=True)
        if gap:
            chunk["skipped"] = gap
        jsonout.emit("logs", None, args.session, chunk)
        return
    if gap:
        printing.err(f"jobs-tui: {gap} bytes rotated away unread")
    printing.write("\n".join(lines) + "\n")


async def tty_follow(jm: JobManager, args: argparse.Namespace) -> int:
    """The last `--lines` final rows now (`--since`: of those written since then), then
    each row as it becomes final, until the job ends; then the rest of its screen and
    its outcome."""
    from jobs_tui.term.rows import ScreenRows

    since = getattr(args, "since_ms", None)
    tail = await raw_tail(jm, args.id, RAW_TAIL_BYTES, dated=since is not None)
    rows = ScreenRows(tail.cols, tail.rows, sizes=tail.sizes, at=tail.offset)
    dated = rows.prime_dated(tail.data, tail.whole, tail.times)
    if since is not None:  # `--since`: the rows made final by bytes written since then
        dated = [(text, ms) for text, ms in dated if ms is not None and ms >= since]
    first = [text for text, _ in dated]
    shown = first[-(args.lines or jm.config.max_log_lines) :]
    details: dict[str, Any] = {"job": jm.get(args.id).to_json(), "rendered": True}
    details["logs"] = "\n".join(shown) + ("\n" if shown else "")
    details["truncated"] = len(shown) < len(first) or bool(tail.offset)
    if details["truncated"]:
        details["earlierBytes"] = tail.offset
        if len(shown) < len(first) and not tail.offset:
            details["earlierLines"] = len(first) - len(shown)
    if shown or args.json or details["truncated"]:
        emit_result(args, {**details, "following": True}, human.logs_lines(details), None)
    follower = jm.follow(args.id, tail.end)
    live = jm.log_files(jm.get(args.id))[0]
    busy = True
    while True:
        record = await jm.wait(args.id, BUSY_POLL_MS if busy else FOLLOW_POLL_MS)
        lines, gap = await asyncio.to_thread(_read, follower, rows, live)
        if not record.running:
            lines += rows.finish()
        busy = bool(lines)
        if lines or gap:
            _say(args, jm, lines, gap)
        if printing.stdout_closed():
            raise BrokenPipeError
        if not record.running:
            final = {"job": record.to_json(), "logs": "", "following": False, "rendered": True}
            return emit_result(args, final, human.outcome_line(record, human.now_ms()))
