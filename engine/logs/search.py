"""Searching a job's retained log, and when its lines were written (the time index).

The shim dates the log in `<id>.log.time` (`timeindex`: absolute offset -> wall ms, one
record per 100 ms of output at most, dropped with the bytes rotated away). A line's time
is that of the record at or before its first byte: early by at most the index's
interval, never late. Both segments (`.log.1`, `.log`) are searched, in order, reading
blocks; output is bounded (`limit` matching lines) and says how many matches were cut.
"""

from __future__ import annotations

import re
import time
from collections import deque
from dataclasses import dataclass, field

from jobs_tui.engine.records.sanitize import sanitize_log
from jobs_tui.engine.registry.safefiles import read_regular
from jobs_tui.engine.shim.protocol import times_of
from jobs_tui.engine.shim.timeindex import MAX_FILE_BYTES, offset_since, parse, time_at

from .segments import LINE_CAP, _open_addressed

_BLOCK = 256 * 1024
_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_DURATION = re.compile(r"([1-9][0-9]{0,8})(ms|s|m|h|d)\Z")


@dataclass(frozen=True)
class SearchLine:
    offset: int  # absolute byte offset of the line's first byte (survives rotation)
    text: str  # sanitized, without its newline
    match: bool  # a matching line (else a context line)
    at_ms: int | None  # when it was written (wall ms, from the time index), None if unknown
    gap: bool = field(default=False, compare=False)  # lines were left out just before it


@dataclass(frozen=True)
class SearchResult:
    lines: list[SearchLine] = field(default_factory=list)
    matches: int = 0  # matching lines in the searched range
    cut: int = 0  # matches left out by the limit


def since_ms(text: str, now_ms: int | None = None) -> int:
    """`5m`, `90s`, `2h`, `1d`, `500ms` ago, or an ISO-8601 time with its zone -> epoch ms.

    ValueError when it is neither (the schema's `since` rule admits only these forms;
    this also refuses a day the calendar lacks).
    """
    now = int(time.time() * 1000) if now_ms is None else now_ms
    found = _DURATION.match(text)
    if found:
        return now - int(found.group(1)) * _UNITS_MS[found.group(2)]
    from datetime import datetime  # not at import: a short command-line call never needs it

    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r} is neither a duration (5m) nor a time") from None
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone")
    return int(moment.timestamp() * 1000)


def read_times(live: str) -> list[tuple[int, int]]:
    """The log's time index (offset, ms) records; empty when it has none or it is refused.

    The shim replaces the index by unlinking it and renaming a new one in: a missing file
    is looked for again a few times (that window lasts microseconds).
    """
    for attempt in range(4):
        try:
            return parse(read_regular(times_of(live), MAX_FILE_BYTES * 2))
        except FileNotFoundError:
            if attempt < 3:
                time.sleep(0.001)
        except OSError:
            break
    return []


def start_since(records: list[tuple[int, int]], ms: int) -> int | None:
    """The first absolute offset written at or after `ms`; None when nothing was."""
    return offset_since(records, ms)


def search(
    live: str,
    previous: str,
    pattern: re.Pattern[str],
    *,
    context: int = 0,
    since: int | None = None,
    limit: int = 200,
) -> SearchResult:
    """Matching lines (and `context` lines around each) of the retained log, in order.

    `since`: only lines from the one holding the first byte written at or after that
    time (ms). At most `limit` matching lines are returned; `cut` counts the others.
    Raises LogMissing.
    """
    records = read_times(live)
    pair, first = _open_addressed(live, previous)
    try:
        begin = 0
        if since is not None:
            offset = start_since(records, since)
            if offset is None:
                return SearchResult()
            begin = _line_start(pair, max(0, offset - first))
        return _scan(pair, first, begin, pattern, context, limit, records)
    finally:
        pair.close()


def _line_start(pair, pos: int) -> int:
    """The start of the line holding byte `pos` (relative to the pair)."""
    pos = min(pos, pair.size)
    while pos > 0:
        start = max(0, pos - _BLOCK)
        block = pair.read(start, pos)
        nl = block.rfind(b"\n")
        if nl >= 0:
            return start + nl + 1
        if pos - start >= LINE_CAP:
            return start
        pos = start
    return 0


def _scan(pair, first: int, begin: int, pattern, context: int, limit: int, records) -> SearchResult:
    out: list[SearchLine] = []
    before: deque[tuple[int, int, str]] = deque(maxlen=context)  # (index, offset, text)
    after = 0  # context lines still owed after the last kept match
    matches = kept = 0
    index = 0  # the number of the line being scanned
    last = -2  # the number of the last line put out (context never repeats a line)
    carry = b""
    carry_at = pos = begin

    def emit(number: int, offset: int, text: str, match: bool) -> None:
        nonlocal last
        if number <= last:
            return
        gap = bool(out) and number != last + 1
        last = number
        absolute = first + offset
        out.append(SearchLine(absolute, text, match, time_at(records, absolute), gap))

    def line(offset: int, raw: bytes) -> None:
        nonlocal after, matches, kept, index
        index += 1
        text = raw.decode("utf-8", "replace")
        if "\x1b" in text or "\r" in text or not text.isprintable():
            text = sanitize_log(text.rstrip("\r"))
        if pattern.search(text):
            matches += 1
            if kept < limit:
                kept += 1
                for held in before:
                    emit(*held, False)
                before.clear()
                emit(index, offset, text, True)
                after = context
                return
        elif after > 0:
            after -= 1
            emit(index, offset, text, False)
            return
        if context and kept < limit:
            before.append((index, offset, text))

    while pos < pair.size:
        block = pair.read(pos, min(pair.size, pos + _BLOCK))
        if not block:
            break
        data = carry + block if carry else block
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                break
            line(carry_at + start, data[max(start, nl - LINE_CAP) : nl])
            start = nl + 1
        carry_at += start
        carry = data[start:]
        if len(carry) > LINE_CAP:
            carry_at += len(carry) - LINE_CAP
            carry = carry[-LINE_CAP:]
        pos += len(block)
    if carry:
        line(carry_at, carry)
    return SearchResult(out, matches, matches - kept)


def times_of_lines(live: str, starts: list[int]) -> list[int | None]:
    """The wall time (ms) each absolute offset was written at, from the time index."""
    records = read_times(live)
    return [time_at(records, start) for start in starts]
