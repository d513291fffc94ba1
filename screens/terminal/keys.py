"""The terminal pane's keys: bindings, help lines, and when `i` may start typing into the job."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from jobs_tui.engine.records.model import JobRecord
from jobs_tui.screens.widgets.pane_keys import find_bindings, scroll_bindings
from jobs_tui.screens.widgets.pane_verbs import PANE_HELP, pane_bindings
from jobs_tui.screens.widgets.source import JobSource

# The actions whose applicability changes with state (the footer hides the others').
TRACKED = ("follow", "match", "interactive")

BINDINGS: list[BindingType] = [
    *scroll_bindings("term"),
    *find_bindings("term"),
    Binding("i", "interactive", "Type into it", id="term.interactive"),
    Binding("question_mark", "help", "Keys", key_display="?", id="term.help"),
    *pane_bindings("term"),
    Binding("q,escape,backspace", "back", "Back", id="term.back"),
]

HELP: dict[str, str] = {
    **PANE_HELP,
    "scroll(-1)": "scroll up into the scrollback (pauses following)",
    "scroll(1)": "scroll down",
    "page": "a page up / down",
    "top": "the top of the scrollback",
    "follow": "follow the job's screen again",
    "find": "find in the scrollback and the screen (smart case)",
    "match(1)": "next match",
    "match(-1)": "previous match",
    "interactive": "type into the job (this session's running jobs; any session's on a "
    "supervising screen, after a y/N)",
    "screen.leave": "stop typing into the job (the one key typing keeps)",
    "help": "this list of keys",
    "back": "back to the list (closes find first)",
}


def cannot_type(
    source: JobSource, job_id: str, record: JobRecord | None, loaded: bool, supervise: bool = False
) -> str | None:
    """Why `i` does not start typing mode now (None: it may); with `supervise` another
    session's job may be typed into (after its y/N)."""
    if record is None:
        return f"{job_id} is no longer in the job table; nothing to type into."
    if not supervise and not source.is_own(record):
        return (
            f"{record.id} is another session's job; to type into it, take it over first "
            "(t on the list)."
        )
    if not record.running:
        return f"{record.id} has finished; its terminal is view only."
    if not record.tty:
        return f"{record.id} was not started with a terminal; nothing to type into."
    if getattr(source, "send_bytes", None) is None:
        return "This job source cannot send keys to a job."
    if not loaded:
        return f"{record.id}'s terminal is still being read; try again in a moment."
    return None
