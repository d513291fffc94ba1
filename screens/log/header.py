"""The log pane's second header line, what is shown, and the note on what the open left out.

(The first line, which job and how it is doing, is `widgets.outcome.title_content`: the
terminal pane's too.)

Pure functions from state to `Content`, so the screen only decides when to repaint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.content import Content

from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens.widgets.words import home_short, human_bytes, plural

if TYPE_CHECKING:
    from jobs_tui.engine.records.results import LogsResult

Parts = list[str | tuple[str, str]]


def shorten_path(path: str, limit: int) -> str:
    """The end of a long path (its file name matters most), with an ellipsis in front."""
    if len(path) <= limit:
        return path
    return "…" + path[-max(1, limit - 1) :]


@dataclass(frozen=True)
class OpenedTail:
    """What the open's tail read left out; the note is worded again as lines arrive."""

    earlier_lines: int | None  # retained lines before the tail, when counting them was cheap
    earlier_bytes: int  # retained bytes before the tail: there, but not loaded
    rotated_bytes: int  # output that rotated away before the retained log: gone
    note: str | None = None
    later_bytes: int = 0  # retained bytes after the lines held (a window paged up, not the tail)

    @classmethod
    def of(cls, result: LogsResult) -> OpenedTail:
        rotated = getattr(result, "rotated_bytes", 0)
        lost = result.job.log_lost_bytes if not rotated else 0  # counted in earlier_bytes
        unloaded = max(0, result.earlier_bytes - rotated - lost)
        lines = result.earlier_lines if unloaded else 0
        return cls(lines, unloaded, rotated, result.note)


def tail_note(tail: OpenedTail, shown: int, dropped: int = 0) -> str:
    """`whole log`, or which earlier output is not shown: not loaded, let go, rotated away.

    `shown` is the rows the pane holds now, `dropped` the lines its window let go.
    """
    hidden: list[str] = []
    if tail.earlier_lines:
        verb = "not shown" if dropped else "not loaded"
        hidden.append(f"{plural(tail.earlier_lines + dropped, 'earlier line')} {verb}")
    elif tail.earlier_bytes:
        hidden.append(f"{human_bytes(tail.earlier_bytes)} earlier not loaded")
        if dropped:
            hidden.append(f"{plural(dropped, 'more line')} not kept")
    elif dropped:
        hidden.append(f"{plural(dropped, 'earlier line')} not kept")
    if tail.later_bytes:
        hidden.append(f"{human_bytes(tail.later_bytes)} later not loaded")
    if tail.rotated_bytes:
        hidden.append(f"{human_bytes(tail.rotated_bytes)} rotated away")
    if tail.later_bytes:
        where = "first " if not (tail.earlier_lines or tail.earlier_bytes or dropped) else ""
        text = f"{where}{plural(shown, 'line')}; " + "; ".join(hidden)
    elif hidden:
        text = f"last {plural(shown, 'line')}; " + "; ".join(hidden)
    else:
        text = "whole log" if shown else "no output yet"
    return f"{text} ({tail.note})" if tail.note else text


def sub_content(
    *,
    following: bool,
    new_lines: int,
    note: str,
    skipped: int,
    path: str,
    width: int,
    wrap: bool = False,
) -> Content:
    """`following · last 2000 lines; … · ~/…/j3.log`: the state first, so it is never cut."""
    state = ("following", "bold $success") if following else ("paused", "bold $warning")
    parts: Parts = [state]
    if wrap:
        parts += [" · ", ("wrap", "bold")]
    if not following and new_lines:
        parts += [" · ", (f"+{plural(new_lines, 'new line')}", "bold $accent")]
    parts += [" · ", (note, "$text-muted")]
    if skipped:
        parts += [" · ", (f"skipped {human_bytes(skipped)} to keep up", "$warning")]
    room = max(12, width - Content.assemble(*parts).cell_length - 5)
    shown = shorten_path(home_short(sanitize_line(path, 4096)), room)
    parts += [" · ", (shown, "$text-muted")]
    return Content.assemble(*parts)
