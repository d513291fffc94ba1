"""The terminal pane's second header line: typing, following or paused, the size, the scrollback."""

from __future__ import annotations

from textual.content import Content

from jobs_tui.screens.widgets.words import human_bytes, plural


def sub_content(
    *,
    interactive: bool,
    following: bool,
    size: tuple[int, int],
    history: int,
    leave_key: str,
    skipped: int = 0,
) -> Content:
    """`following · terminal 80×24 · 312 lines of scrollback`: the state first, never cut."""
    if interactive:
        parts: list[str | tuple[str, str]] = [("typing", "bold $accent")]
    elif following:
        parts = [("following", "bold $success")]
    else:
        parts = [("paused", "bold $warning")]
    parts += [" · ", (f"terminal {size[0]}×{size[1]}", "$text-muted")]
    parts += [" · ", (f"{plural(history, 'line')} of scrollback", "$text-muted")]
    if interactive:
        parts += [" · ", (f"{leave_key} leaves", "bold")]
    if skipped:
        parts += [" · ", (f"skipped {human_bytes(skipped)} to keep up", "$warning")]
    return Content.assemble(*parts)
