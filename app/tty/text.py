"""A terminal (`tty`) job's output read as text at the command line and the MCP server:
rendered through the terminal pane's emulator (`jobs_tui.term`), never the raw bytes.

pyte and the emulator are imported when a terminal job is read, not before: the other
verbs and the server's start do not pay for them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from jobs_tui.engine import JobError
from jobs_tui.engine.logs.rawtail import (
    LAST_LINE_BYTES,
    RAW_TAIL_BYTES,
    RawTail,
    last_row,
    raw_tail,
    record_tail,
)

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager
    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.engine.registry.paths import RegistryPaths
    from jobs_tui.term.history import DatedRow


class TermRenderer:
    """The `TtyRenderer` (and `TtyDater`) the tools are given: a terminal job's bytes as
    the rows its terminal shows, dated when asked (`jobs_tui.term.history`)."""

    def __call__(self, tail: RawTail) -> list[str]:
        from jobs_tui.term.text import render

        return render(
            tail.data, tail.cols, tail.rows, whole=tail.whole, first=tail.offset, sizes=tail.sizes
        ).lines

    def dated(self, tail: RawTail) -> list[DatedRow]:
        from jobs_tui.term.history import dated_screen

        return dated_screen(tail.data, tail.cols, tail.rows, **_dating(tail))

    def history(self, tail: RawTail) -> Iterator[DatedRow]:
        from jobs_tui.term.history import dated_rows

        return dated_rows(tail.data, tail.cols, tail.rows, **_dating(tail))


def _dating(tail: RawTail) -> dict[str, Any]:
    """Where a tail's bytes start, whether it is the whole log, and its times and sizes."""
    return {
        "first": tail.offset,
        "whole": tail.whole,
        "times": tail.times,
        "sizes": tail.sizes,
    }


render_lines = TermRenderer()  # the rows a terminal shows for a `RawTail`


async def screen_lines(jm: JobManager, job_id: str, cap: int = RAW_TAIL_BYTES) -> list[str]:
    """A terminal job's output as rows of text (its log's last `cap` bytes rendered)."""
    return render_lines(await raw_tail(jm, job_id, cap))


async def screen_tail(jm: JobManager, job_id: str, count: int) -> tuple[list[str], int | None, int]:
    """A terminal job's last `count` rows, the rows before them (None when the rendered
    bytes were themselves cut: not counted) and the bytes before what was rendered."""
    tail = await raw_tail(jm, job_id, RAW_TAIL_BYTES)
    rows = render_lines(tail)
    shown = rows[-count:]
    earlier = len(rows) - len(shown)
    return shown, (earlier if earlier and not tail.offset else None), tail.offset


def screen_delta(
    prior: bytes,
    whole: bool,
    new: bytes,
    cols: int,
    rows: int,
    ended: bool,
    sizes: tuple[tuple[int, int, int], ...] = (),
    at: int = 0,
) -> str:
    """The `ScreenDelta` the vocabularies are given: the rows `new` made final after
    `prior`, then (unless `ended`) the open rows up to the cursor's; at the sizes the
    job's terminal had (`sizes`, from `at`, the absolute offset of `prior[0]`)."""
    from jobs_tui.term.rows import ScreenRows

    screen = ScreenRows(cols, rows, sizes=sizes, at=at)
    screen.prime(prior, whole)
    out = screen.feed(new)
    out += screen.finish() if ended else screen.pending()
    return "\n".join(out) + ("\n" if out else "")


def shown_last_line(paths: RegistryPaths, record: JobRecord) -> JobRecord:
    """`record` with the last line a terminal shows when it is a terminal job (a copy;
    the record as it is otherwise, or when its log cannot be read). Blocking: a read of
    LAST_LINE_BYTES and their emulation, a few ms."""
    if not record.tty:
        return record
    try:
        line = last_row(render_lines(record_tail(paths, record, LAST_LINE_BYTES)))
    except (JobError, OSError):
        return record
    return dataclasses.replace(record, last_line=line)


def shown_last_lines(paths: RegistryPaths, records: list[JobRecord]) -> list[JobRecord]:
    """`records`, the terminal jobs' last lines as their terminals show them."""
    if not any(r.tty for r in records):
        return records
    return [shown_last_line(paths, r) for r in records]
