"""`HeaderPainter`: paints the log pane's header lines and `+N new lines` bar from its state.

It keeps what only they need: the tail the open left out, the lost output last named.
The words themselves are pure functions: `header` (this pane's) and `widgets.outcome` (the title).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from jobs_tui.engine.records.format import lost_note
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.screens.widgets.outcome import title_content, title_key
from jobs_tui.screens.widgets.words import plural

from .header import OpenedTail, sub_content, tail_note

if TYPE_CHECKING:
    from .screen import LogScreen
    from .view import LogView


class HeaderPainter:
    """Owned by the screen; reads only its public state (reactives, `tail_note`, `log_path`)."""

    def __init__(self, screen: LogScreen) -> None:
        self.screen = screen
        self.tail: OpenedTail | None = None  # what the open's tail read left out
        self._lost: tuple[int, str | None] | None = None  # (bytes, why) the pane last named
        self._title_key: object = None

    def title(self, record: JobRecord | None, now: float, force: bool = False) -> bool:
        """Repaint the title if what it says changed (or `force`); False: it had not."""
        screen = self.screen
        key = title_key(record, now, screen.source.config.repaint_ms)
        if not force and key == self._title_key:
            return False
        self._title_key = key
        peer = record is not None and not screen.source.is_own(record)
        title = screen.query_one("#jobs-log-title", Static)
        title.update(title_content(record, screen.job_id, now, peer=peer), layout=False)
        return True

    def lost_changed(self, record: JobRecord | None) -> bool:
        """Output was lost since the last look (a full disk): the sub line says so now."""
        lost = None if record is None else (record.log_lost_bytes, record.log_note)
        if lost == self._lost:
            return False
        self._lost = lost
        return True

    def note(self, record: JobRecord | None, main: LogView, view: LogView, filter_text: str) -> str:
        """What the pane shows of the log, worded for the rows it holds now."""
        if self.tail is None:
            return ""
        tail = self.tail
        if record is not None:  # output lost since the open (a full disk) is named now
            tail = dataclasses.replace(tail, note=lost_note(record))
        pager = self.screen.pager
        if pager.enabled:  # lines let go are still there to read: they are "not loaded"
            tail = pager.tail(tail, main)
            note = tail_note(tail, main.line_count + bool(main.partial))
        else:
            note = tail_note(tail, main.line_count + bool(main.partial), main.base)
        if filter_text:
            shown = plural(view.line_count, "line")
            note = f"{shown} with {filter_text!r}" + (f" · {note}" if note else "")
        return note

    def sub(self) -> None:
        """The sub line (the problem, `reading the log…`, or what is shown) and the bar."""
        screen = self.screen
        sub = screen.query_one("#jobs-log-sub", Static)
        if screen.problem:
            sub.update(Content.styled(screen.problem, "$error"))
        elif not screen.loaded:
            sub.update(Content.styled("reading the log…", "$text-muted"))
        else:
            content = sub_content(
                following=screen.following,
                wrap=screen.wrap,
                new_lines=screen.new_lines,
                note=screen.tail_note,
                skipped=screen.skipped,
                path=screen.log_path,
                width=screen.size.width,
            )
            sub.update(content, layout=False)
        indicator = screen.query_one("#jobs-new-lines", Static)
        show = screen.loaded and not screen.following and screen.new_lines > 0
        indicator.set_class(show, "-shown")
        if show:
            indicator.update(
                Content.assemble(
                    (f"+{plural(screen.new_lines, 'new line')}", "bold"),
                    "  End, G or f follows the tail",
                )
            )
