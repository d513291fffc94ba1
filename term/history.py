"""A terminal job's rows with the time and place in its log of the bytes that made each
final: what `logs --grep`, `--since` and `--timestamps` of a terminal job read.

The log's time index gives the wall time of each stretch of bytes (`times`: absolute
offset -> ms, as `engine.shim.timeindex` reads them). The bytes are fed in pieces cut at each
record (and at each resize, `sizes`, and every PIECE bytes), so all the bytes of a piece
have one time; a row made final by a piece (`rows.ScreenRows`: it scrolled off, or the
cursor went below it; an alternate screen's rows and the last open ones when the output
ends) carries that piece's time and its first byte's offset. A row never carries an
escape: it is cells.

- `dated_rows`: every row the whole log made final, in order (a row that scrolled into
  the scrollback long ago included, however many came after it): what grep searches.
- `dated_screen`: the rows `text.render` shows for the log's last bytes (scrollback,
  then the screen), each dated: what `--since` and `--timestamps` show.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .model import TermModel
from .plan import Plan, Size, pieces, plan, size_at, time_at
from .rows import PIECE, ScreenRows
from .text import TEXT_SCROLLBACK, row_text

Times = Sequence[tuple[int, int]]  # (absolute offset, wall ms), in order


@dataclass(frozen=True)
class DatedRow:
    """A row as a terminal shows it; `offset`: where the bytes that made it final begin
    (absolute, to a piece); `at_ms`: when they were written (None: the index lacks it)."""

    text: str
    offset: int
    at_ms: int | None


def _fed(
    screen: ScreenRows,
    data: bytes,
    parts: Sequence[tuple[int, int]],
    first: int,
    times: Times,
    sizes: Sequence[Size],
) -> Iterator[tuple[int, int | None, list[str]]]:
    """Feed `parts` of `data` in dated pieces: (offset, ms, rows made final) for each."""
    model = screen.model
    cuts = sorted({at for at, _ in times} | {at for at, _, _ in sizes})
    for lo, hi in pieces(parts, first, cuts, PIECE):
        size = size_at(sizes, first + lo, (model.cols, model.rows))
        if size != (model.cols, model.rows):
            model.resize(*size)
        yield first + lo, time_at(times, first + lo), screen.feed(data[lo:hi])


def _screen(data: bytes, todo: Plan, first: int, size: tuple[int, int], sizes, scrollback):
    cols, rows = size_at(sizes, first + todo.start, size)
    return ScreenRows(cols, rows, scrollback)


def _plain_runs(data: bytes, lo: int, hi: int, cols: int, least: int) -> Iterator[tuple[int, int]]:
    """Runs of at least `least` whole lines of printable ASCII, colours (SGR) and erases
    to the line's end (each line's text shorter than `cols`, each ending in CR LF, as a
    terminal's line discipline writes them) in data[lo:hi]."""
    wide = _WIDE.get(cols)
    if wide is None:
        wide = _WIDE[cols] = re.compile(rb"(?m)^[^\n]{%d,}\n" % (cols + 1))
    for found in _PLAIN.finditer(data, lo, hi):
        start, end = found.span()
        if start > 0 and data[start - 1] != 0x0A:  # begun inside a line: from the next one
            start = data.index(b"\n", start, end) + 1
        run = start
        for long in wide.finditer(data, start, end):  # cut where a line wraps
            line = data[long.start() : long.end() - 2]
            if len(_STYLE.sub(b"", line) if b"\x1b" in line else line) >= cols:
                if data.count(b"\n", run, long.start()) >= least:
                    yield run, long.start()
                run = long.end()
        if data.count(b"\n", run, end) >= least:
            yield run, end


_WIDE: dict[int, re.Pattern[bytes]] = {}
_PLAIN = re.compile(rb"(?:(?:[ -~]++|\x1b\[[0-9;]*+m|\x1b\[0?K)*+\r\n)++")
_STYLE = re.compile(rb"\x1b\[[0-9;]*m|\x1b\[0?K")


def _nth_line_end(data: bytes, start: int, count: int) -> int:
    at = start
    for _ in range(count):
        at = data.find(b"\n", at) + 1
    return at


def _lines_as_rows(
    data: bytes, head: int, tail: int, first: int, times: Times
) -> Iterator[tuple[int, int | None, list[str]]]:
    """The plain lines of data[head:tail] as rows: each its text (colours and erases
    dropped, trailing blanks too), its first byte's offset and its newline's time."""
    chunk = data[head:tail]
    raw = chunk.split(b"\r\n")[:-1]
    clean = _STYLE.sub(b"", chunk) if b"\x1b" in chunk else chunk
    texts = clean.decode("ascii").split("\r\n")
    record = bisect_right(times, (first + head, 1 << 64)) - 1
    at = first + head
    for line, text in zip(raw, texts, strict=False):
        newline = at + len(line) + 1
        while record + 1 < len(times) and times[record + 1][0] <= newline:
            record += 1
        yield at, times[record][1] if record >= 0 else None, [text.rstrip()]
        at = newline + 1


def _rows_fed(
    screen: ScreenRows, data: bytes, todo: Plan, first: int, times: Times, sizes: Sequence[Size]
) -> Iterator[tuple[int, int | None, list[str]]]:
    """`_fed`, but a long run of plain lines (a build's, a test runner's) is emulated
    only at its ends: once its first screenful is fed, each further line is a fresh row,
    so the lines between its first and last screenful are given as they are (each dated
    by its own newline) and the screen is as feeding them would leave it."""
    model = screen.model
    if todo.prefix:
        model.feed(todo.prefix)
    cuts = [at for at, _, _ in sizes]
    for lo, hi in todo.parts:
        pos = lo
        least = 2 * model.rows + 8
        resized = any(first + lo < at < first + hi for at in cuts)  # widths change: no skip
        for start, end in () if resized else _plain_runs(data, lo, hi, model.cols, least):
            if start < pos:
                continue
            yield from _fed(screen, data, ((pos, start),), first, times, sizes)
            pos = start
            if not model.takes_plain_lines():
                continue
            head = _nth_line_end(data, start, model.rows)
            tail = _nth_line_end(data, start, data.count(b"\n", start, end) - model.rows)
            yield from _fed(screen, data, ((start, head),), first, times, sizes)
            yield from _lines_as_rows(data, head, tail, first, times)
            pos = tail
        yield from _fed(screen, data, ((pos, hi),), first, times, sizes)


def dated_rows(
    data: bytes,
    cols: int,
    rows: int,
    *,
    first: int = 0,
    whole: bool = True,
    times: Times = (),
    sizes: Sequence[Size] = (),
) -> Iterator[DatedRow]:
    """Every row the log (`data`, byte 0 at absolute `first`; `whole`: from the output's
    start) made final, in order, dated (see module doc)."""
    todo = plan(data, whole, window=0)
    screen = _screen(data, todo, first, (cols, rows), sizes, TEXT_SCROLLBACK)
    offset, ms = first + todo.start, time_at(times, first + todo.start)
    for offset, ms, made in _rows_fed(screen, data, todo, first, times, sizes):
        for text in made:
            yield DatedRow(text, offset, ms)
    for text in screen.finish():
        yield DatedRow(text, offset, ms)


def dated_screen(
    data: bytes,
    cols: int,
    rows: int,
    *,
    first: int = 0,
    whole: bool = True,
    times: Times = (),
    sizes: Sequence[Size] = (),
    scrollback: int = TEXT_SCROLLBACK,
) -> list[DatedRow]:
    """`text.render`'s rows for `data`, each dated by the piece that made it final; a
    row whose text changed since (redrawn in place), or never final (the cursor's, an
    alternate screen's), by the last piece."""
    todo = plan(data, whole)
    screen = _screen(data, todo, first, (cols, rows), sizes, scrollback)
    model: TermModel = screen.model
    dates: dict[int, tuple[str, int, int | None]] = {}  # absolute row -> text, offset, ms
    offset, ms = first + todo.start, time_at(times, first + todo.start)
    if todo.prefix:
        model.feed(todo.prefix)
    for offset, ms, made in _fed(screen, data, todo.parts, first, times, sizes):
        upto = screen.given
        for n, text in enumerate(made):
            dates[upto - len(made) + n] = (text, offset, ms)
        if len(dates) > 2 * scrollback + 2 * model.rows:  # rows off the scrollback's bound
            floor = model.history_dropped
            dates = {a: d for a, d in dates.items() if a >= floor}
    dropped = model.history_dropped
    out = [row_text(model.line(n), model.cols) for n in range(model.total_lines())]
    while out and not out[-1].strip():
        out.pop()
    dated: list[DatedRow] = []
    for n, text in enumerate(out):
        known = dates.get(dropped + n)
        if known is not None and known[0] == text:
            dated.append(DatedRow(text, known[1], known[2]))
        else:
            dated.append(DatedRow(text, offset, ms))
    return dated
