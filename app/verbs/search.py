"""`logs ID --grep REGEX [--context N] [--since WHEN] [--timestamps]`, and the times column.

The search is the engine's (`JobManager.search`): the whole retained log (across a
rotation), sanitized lines, bounded; `cut` says how many matches did not fit. Times come
from the log's time index (None where it has none: `--:--:--.---`).
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from .. import printing
from ..errors import EXIT_OK
from ..jsonout import emit_result
from . import human

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager
    from jobs_tui.engine.logs.search import SearchResult
    from jobs_tui.engine.records.model import JobRecord

NO_TIME = "--:--:--.---"


def stamp(at_ms: int | None, today: str | None = None) -> str:
    """`14:03:07.250` (local time) for today's lines, `11-30 14:03:07.250` for older ones."""
    if at_ms is None:
        return NO_TIME
    moment = time.localtime(at_ms / 1000)
    clock = time.strftime("%H:%M:%S", moment) + f".{at_ms % 1000:03d}"
    day = time.strftime("%Y-%m-%d", moment)
    if day == (today or time.strftime("%Y-%m-%d")):
        return clock
    return time.strftime("%m-%d ", moment) + clock


def stamped(lines: list[str], times: list[int | None]) -> list[str]:
    today = time.strftime("%Y-%m-%d")
    return [f"{stamp(at, today)}  {line}" for line, at in zip(lines, times, strict=False)]


async def grep(jm: JobManager, args: argparse.Namespace) -> int:
    found = await jm.search(args.id, args.grep, context=args.context or 0, since_ms=args.since_ms)
    return show_search(args, jm.get(args.id), found)


def show_search(
    args: argparse.Namespace,
    record: JobRecord,
    found: SearchResult,
    rendered: bool = False,
    earlier: int = 0,
) -> int:
    """A search's matching lines (and context) as `logs --grep` prints them; `rendered`:
    rows of a terminal job's screen (`verbs.tty_logs`), said in the JSON; `earlier`: bytes the
    log retains before what was searched (a terminal job's search is bounded)."""
    details: dict[str, Any] = {
        "job": record.to_json(),
        "grep": args.grep,
        "lines": [
            {"offset": s.offset, "text": s.text, "match": s.match, "atMs": s.at_ms}
            for s in found.lines
        ],
        "matches": found.matches,
        "cut": found.cut,
    }
    if rendered:
        details["rendered"] = True
    if earlier:
        details.update(truncated=True, earlierBytes=earlier)
    if args.json:
        return emit_result(args, details, "")
    texts = [s.text for s in found.lines]
    if args.timestamps:
        texts = stamped(texts, [s.at_ms for s in found.lines])
    shown: list[str] = []
    for at, (line, text) in enumerate(zip(found.lines, texts, strict=True)):
        if at and args.context and line.gap:
            shown.append("--")  # lines left out between two groups, as grep -C marks it
        shown.append(text)
    if shown:
        printing.line("\n".join(shown))
    what = f"{found.matches} matching line{'' if found.matches == 1 else 's'}"
    if found.cut:
        what += f"; {found.cut} more not shown (narrow --grep, or add --since)"
    if earlier:
        from jobs_tui.engine.logs.rawtail import SEARCH_BYTES

        what += f"; the first {earlier} bytes not searched (the last {SEARCH_BYTES >> 20} MiB were)"
    printing.err(f"jobs-tui: {human.safe(record.id, 20)}: {what}")
    return EXIT_OK
