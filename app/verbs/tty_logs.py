"""`jobs-tui logs` of a terminal job, and `--raw` of any job.

A terminal (`tty`) job's output is read as a terminal shows it: its log's last bytes
rendered through the terminal pane's emulator (`tty.text`), then the last `--lines` rows
(or a page of them with `--offset`/`--limit`). `--since` and `--timestamps` date those
rows (by the bytes that made each final, from the time index); `--grep` searches every
row the retained log made final (`jobs_tui.term.history`), never its bytes' lines.
`--raw` gives the bytes the job wrote, escapes and all, for a reader that has its own
terminal (`jobs-tui logs j3 --raw | less -R`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.logs.rawtail import RAW_TAIL_BYTES, SEARCH_BYTES, raw_tail
from jobs_tui.engine.records.sanitize import spell_controls

from .. import printing
from ..jsonout import emit_result
from ..tty.text import render_lines
from . import human

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager


def renders(args: argparse.Namespace, tty: bool) -> bool:
    """Whether this `logs` call is answered here: `--raw`, or a terminal job's text."""
    return bool(getattr(args, "raw", False)) or tty


def _last_lines(data: bytes, count: int) -> tuple[bytes, int]:
    """The last `count` lines of `data` (a line is what ends in a newline, or the
    unfinished last one), and how many came before them."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
        kept = lines[-count:]
        return b"\n".join(kept) + b"\n", len(lines) - len(kept)
    kept = lines[-count:]
    return b"\n".join(kept), len(lines) - len(kept)


async def raw_logs(jm: JobManager, args: argparse.Namespace) -> int:
    """The bytes as written: the last `--lines` lines of the log's last bytes."""
    tail = await raw_tail(jm, args.id, RAW_TAIL_BYTES)
    data, earlier = _last_lines(tail.data, args.lines or jm.config.max_log_lines)
    details: dict[str, Any] = {
        "job": jm.get(args.id).to_json(),
        "logs": data.decode("utf-8", "replace"),
        "raw": True,
        "truncated": bool(earlier or tail.offset),
    }
    if details["truncated"]:
        details["earlierBytes"] = tail.offset + len(tail.data) - len(data)
    if args.json:
        return emit_result(args, details, [])
    if sys.stdout.isatty():  # a hostile job's escapes never act on the reader's terminal
        printing.write(spell_controls(data.decode("utf-8", "replace")))
        return 0
    sys.stdout.flush()
    printing.write_bytes(data)
    return 0


async def tty_logs(jm: JobManager, args: argparse.Namespace) -> int:
    """A terminal job's output as rows of text (see module doc)."""
    if getattr(args, "raw", False):
        return await raw_logs(jm, args)
    if args.grep is not None:
        return await tty_grep(jm, args)
    if args.since_ms is not None or args.timestamps:
        return await tty_dated(jm, args)
    tail = await raw_tail(jm, args.id, RAW_TAIL_BYTES)
    rows = render_lines(tail)
    details: dict[str, Any] = {"job": jm.get(args.id).to_json(), "rendered": True}
    if args.offset is not None or args.limit is not None:
        first = args.offset or 0
        shown = rows[first : first + args.limit] if args.limit else rows[first:]
        details.update(offset=first, totalLines=len(rows), truncated=bool(tail.offset))
    else:
        shown = rows[-(args.lines or jm.config.max_log_lines) :]
        earlier = len(rows) - len(shown)
        details["truncated"] = bool(earlier or tail.offset)
        if details["truncated"]:
            details["earlierBytes"] = tail.offset
            if earlier and not tail.offset:
                details["earlierLines"] = earlier
    details["logs"] = "\n".join(shown) + ("\n" if shown else "")
    return emit_result(args, details, human.logs_lines(details))


async def tty_grep(jm: JobManager, args: argparse.Namespace) -> int:
    """`--grep` of a terminal job: every row its retained log made final, dated."""
    import asyncio

    from jobs_tui.engine.calls.arguments import compile_regex
    from jobs_tui.engine.logs.ttysearch import search_rows

    from .search import show_search

    pattern = compile_regex("grep", args.grep)
    tail = await raw_tail(jm, args.id, SEARCH_BYTES, dated=True)
    found = await asyncio.to_thread(
        lambda: search_rows(
            render_lines.history(tail), pattern, context=args.context or 0, since_ms=args.since_ms
        )
    )
    return show_search(
        args, jm.get(args.id), found, rendered=True, earlier=tail.offset if tail.capped else 0
    )


async def tty_dated(jm: JobManager, args: argparse.Namespace) -> int:
    """`--since`/`--timestamps` of a terminal job: the last `--lines` rows it shows
    (written since then), each dated by the bytes that made it final."""
    from jobs_tui.engine.logs.ttysearch import dated_tail

    from .search import stamped

    tail = await raw_tail(jm, args.id, RAW_TAIL_BYTES, dated=True)
    count = args.lines or jm.config.max_log_lines
    got = dated_tail(tail, render_lines.dated, count, args.since_ms)
    texts = [row.text for row in got.rows]
    details: dict[str, Any] = {"job": jm.get(args.id).to_json(), "rendered": True}
    details["logs"] = "\n".join(texts) + ("\n" if texts else "")
    details["truncated"] = got.truncated
    if got.truncated:
        details["earlierBytes"] = got.earlier_bytes
        if got.earlier and not got.earlier_bytes:
            details["earlierLines"] = got.earlier
    if args.timestamps:
        details["times"] = [row.at_ms for row in got.rows]
    lines = human.logs_lines(details)
    if args.timestamps and texts:
        lines[-1] = "\n".join(stamped(texts, details["times"]))
    return emit_result(args, details, lines)
