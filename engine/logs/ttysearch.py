"""grep, `since` and `timestamps` over a terminal job's rows (issue 23, F), not its bytes.

A terminal job's bytes' lines are not what its terminal showed: a line a program
overwrote in place (`error: fail`, `ESC[1G ESC[K`, `ok: fine`) is one line of both, a
full-screen program's escapes cut its text, a width probe stays. So a door that has an
emulator (a `TtyDater`: the command line's, the MCP server's) renders them, dated by the
time index, and these functions search and filter those rows as `logs.search` does lines:
the same `SearchResult` (matching rows, `context` rows around them, gaps, a limit and a
count of what it cut), each row with its offset and time.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .rawtail import DatedRowLike, RawTail
from .search import SearchLine, SearchResult


def since_filter(rows: Iterable[DatedRowLike], since_ms: int | None) -> Iterable[DatedRowLike]:
    """The rows written at or after `since_ms` (all of them when it is None); a row the
    time index cannot date is left out when a time is asked for."""
    if since_ms is None:
        return rows
    return (row for row in rows if row.at_ms is not None and row.at_ms >= since_ms)


def search_rows(
    rows: Iterable[DatedRowLike],
    pattern: re.Pattern[str],
    *,
    context: int = 0,
    since_ms: int | None = None,
    limit: int = 200,
) -> SearchResult:
    """Matching rows (and `context` rows around each), in order; at most `limit`
    matching rows, `cut` counts the others (as `logs.search.search`)."""
    out: list[SearchLine] = []
    before: deque[tuple[int, DatedRowLike]] = deque(maxlen=context)
    after = matches = kept = 0
    last = -2  # the number of the last row put out (context never repeats a row)

    def emit(number: int, row: DatedRowLike, match: bool) -> None:
        nonlocal last
        if number <= last:
            return
        gap = bool(out) and number != last + 1
        last = number
        out.append(SearchLine(row.offset, row.text, match, row.at_ms, gap))

    for number, row in enumerate(since_filter(rows, since_ms)):
        if pattern.search(row.text):
            matches += 1
            if kept < limit:
                kept += 1
                for held in before:
                    emit(*held, False)
                before.clear()
                emit(number, row, True)
                after = context
                continue
        elif after > 0:
            after -= 1
            emit(number, row, False)
            continue
        if context and kept < limit:
            before.append((number, row))
    return SearchResult(out, matches, matches - kept)


@dataclass(frozen=True)
class DatedTail:
    """The last `count` rows a terminal shows (since `since_ms`), each with its time;
    `earlier`: rendered rows left out before them; `earlier_bytes`: the bytes before what
    was rendered (since then, with a time)."""

    rows: list[DatedRowLike]
    earlier: int
    earlier_bytes: int

    @property
    def truncated(self) -> bool:
        return bool(self.earlier or self.earlier_bytes)


def dated_tail(
    tail: RawTail,
    dated: Callable[[RawTail], list[DatedRowLike]],
    count: int,
    since_ms: int | None,
) -> DatedTail:
    """The last `count` of the rendered rows of `tail` written since `since_ms`. With a
    time, bytes before the tail count only when written since then (`--since 1m` of a job
    whose last minute fits in the tail is not cut)."""
    rows = list(since_filter(dated(tail), since_ms))
    shown = rows[-count:] if count else rows
    earlier = len(rows) - len(shown)
    cut = tail.offset
    if since_ms is not None and cut and tail.times:
        from jobs_tui.engine.shim.timeindex import offset_since

        boundary = offset_since(list(tail.times), since_ms)
        cut = 0 if boundary is None or boundary >= tail.offset else tail.offset - boundary
    return DatedTail(shown, earlier, cut)
