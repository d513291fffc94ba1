"""The log pane's two header lines: which job (and how it is doing), and what is shown.

Pure functions from state to `Content`, so the screen only decides when to repaint.
"""

from __future__ import annotations

from textual.content import Content

from jobs_tui.engine.format import glyph, outcome
from jobs_tui.engine.model import JobRecord
from jobs_tui.engine.sanitize import sanitize_line

from .detail import STATUS_STYLES, home_short

Parts = list[str | tuple[str, str]]


def human_bytes(count: int) -> str:
    size = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def shorten_path(path: str, limit: int) -> str:
    """The end of a long path (its file name matters most), with an ellipsis in front."""
    if len(path) <= limit:
        return path
    return "…" + path[-max(1, limit - 1) :]


def tail_note(
    truncated: bool, earlier_lines: int | None, earlier_bytes: int, shown: int, note: str | None
) -> str:
    """`whole log`, or how much of the log was left unread because only its tail is loaded."""
    if not truncated:
        text = "whole log" if shown else "no output yet"
    elif earlier_lines:
        text = f"last {shown} lines; {earlier_lines} earlier lines not loaded"
    else:
        text = f"last {shown} lines; {human_bytes(earlier_bytes)} earlier not loaded"
    return f"{text} ({note})" if note else text


def title_content(record: JobRecord | None, job_id: str, now_ms: float, *, peer: bool) -> Content:
    """`▸ j3  build  running · 12.0s`, tagged `peer` for another session's job."""
    if record is None:
        return Content.styled(f"{job_id} (cleared)", "bold $text-muted")
    _mark, _, rest = outcome(record, now_ms).partition(" ")
    parts: Parts = [
        (glyph(record), STATUS_STYLES[record.status]),
        " ",
        (record.id, "bold"),
        "  ",
        (sanitize_line(record.label, 80), "bold"),
        "  ",
        (rest, "$text-muted"),
    ]
    if peer:
        parts.append(("  peer", "italic $text-secondary"))
    return Content.assemble(*parts)


def sub_content(
    *, following: bool, new_lines: int, note: str, skipped: int, path: str, width: int
) -> Content:
    """`following · last 2000 lines; … · ~/…/j3.log`: the state first, so it is never cut."""
    state = ("following", "bold $success") if following else ("paused", "bold $warning")
    parts: Parts = [state]
    if not following and new_lines:
        parts += [" · ", (f"+{new_lines} new lines", "bold $accent")]
    parts += [" · ", (note, "$text-muted")]
    if skipped:
        parts += [" · ", (f"skipped {human_bytes(skipped)} to keep up", "$warning")]
    room = max(12, width - Content.assemble(*parts).cell_length - 5)
    parts += [" · ", (shorten_path(home_short(path), room), "$text-muted")]
    return Content.assemble(*parts)
