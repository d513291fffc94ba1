"""The job list's keys: bindings, help, when each applies, and the ones that move the cursor."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType

from jobs_tui.engine.records.model import JobRecord
from jobs_tui.screens.widgets.help import HelpScreen, key_rows

if TYPE_CHECKING:
    from .screen import JobsScreen

    _Base = JobsScreen
else:
    _Base = object

# The actions whose applicability changes with the selection (the footer hides the others').
TRACKED = (
    "open_log",
    "kill",
    "take_over",
    "clear",
    "restart",
    "declared_start",
    "up_all",
    "down_all",
)

BINDINGS: list[BindingType] = [
    Binding("up,k", "move(-1)", "Up", show=False, id="jobs.up"),
    Binding("down,j", "move(1)", "Down", show=False, id="jobs.down"),
    Binding("pageup", "page(-1)", "Page up", show=False, id="jobs.page-up"),
    Binding("pagedown", "page(1)", "Page down", show=False, id="jobs.page-down"),
    Binding("home,g", "first", "First", show=False, id="jobs.first"),
    Binding("end,G", "last", "Last", show=False, id="jobs.last"),
    Binding("enter,l", "open_log", "Log", key_display="⏎", id="jobs.open-log"),
    Binding("d,K", "kill", "Kill", id="jobs.kill"),
    Binding("t", "take_over", "Take over", id="jobs.take-over"),
    Binding("x", "clear", "Clear finished", id="jobs.clear"),
    Binding("r", "restart", "Restart", show=False, id="jobs.restart"),
    Binding("a", "start_job", "Start", id="jobs.start"),
    Binding("s", "declared_start", "Start declared", id="jobs.declared-start"),
    Binding("U", "up_all", "Up all", id="jobs.up-all"),
    Binding("D", "down_all", "Down all", show=False, id="jobs.down-all"),
    Binding("z", "zoom", "Zoom", show=False, id="jobs.zoom"),
    Binding("slash", "filter", "Filter", show=False, key_display="/", id="jobs.filter"),
    Binding("question_mark", "help", "Keys", key_display="?", id="jobs.help"),
    Binding("q,escape", "close", "Close", id="jobs.close"),
]

HELP: dict[str, str] = {
    "move(-1)": "select the job above",
    "move(1)": "select the job below",
    "page": "a page up / down",
    "first": "the first job",
    "last": "the last job",
    "open_log": "open the job's log",
    "kill": "kill the job (y/N); on a stopping job: SIGKILL now; declared: down NAME",
    "take_over": "take over another session's running job (y/N)",
    "clear": "clear this session's finished jobs (y/N)",
    "restart": "restart the job as a new one (y/N while it runs); not started: start it",
    "start_job": "start a command as a new job (ctrl+t in the prompt: with a terminal)",
    "declared_start": "start the selected declared job and what it depends on (y/N)",
    "up_all": "bring the project's declared jobs up, in dependency order (y/N)",
    "down_all": "bring every declared job down, dependents first (y/N)",
    "zoom": "the selected job's detail and live tail over the whole screen (again: the list)",
    "filter": "filter the list by id, label or command (Esc clears)",
    "help": "this list of keys",
    "close": "close (Esc clears a filter first)",
}


def applies(
    action: str,
    record: JobRecord | None,
    records: list[JobRecord],
    is_own: Callable[[JobRecord], bool],
    supervise: bool = False,
) -> bool:
    """Whether the footer shows `action` for the selected `record` (of all `records`);
    with `supervise` every session's job is the screen's to act on."""
    own = record is not None and is_own(record)
    ours = own or (record is not None and supervise)
    if action == "open_log":
        return record is not None
    if action == "kill":
        return record is not None and ours and record.running
    if action == "take_over":
        return record is not None and not own and record.running
    if action == "clear":
        return any((supervise or is_own(r)) and not r.running for r in records)
    if action == "restart":
        return record is not None and (ours or not record.running)
    return True


# What `?` says of the keys that act on a job when the screen supervises every session's.
SUPERVISE_HELP: dict[str, str] = {
    "kill": (
        "kill the job, any session's (y/N); on a stopping job: SIGKILL now; declared: down NAME"
    ),
    "take_over": "make another session's running job this session's (y/N)",
    "clear": "clear the project's finished jobs, every session's (y/N)",
    "restart": (
        "restart the job as a new one, any session's (y/N while it runs); not started: start it"
    ),
}


class ListMoves(_Base):
    """Mixed into `JobsScreen`: the keys that move the cursor, and `?` that lists every key.

    The selection is set here, not only on the CursorMoved message, so the row and the
    detail pane of one key press reach the terminal in the same frame.
    """

    def _selection_changed(self) -> None:
        """After a key moved the cursor: the row and the detail reach the screen together."""
        self.selection = self.job_list.cursor_id

    def action_move(self, delta: int) -> None:
        self.job_list.move(delta)
        self._selection_changed()

    def action_page(self, direction: int) -> None:
        self.job_list.page(direction)
        self._selection_changed()

    def action_first(self) -> None:
        self.job_list.first()
        self._selection_changed()

    def action_last(self) -> None:
        self.job_list.last()
        self._selection_changed()

    def action_help(self) -> None:
        texts = {**self.HELP, **SUPERVISE_HELP} if self.supervise else self.HELP
        rows = key_rows(self.app, list(type(self).BINDINGS), texts)
        self.app.push_screen(HelpScreen("The job list", rows))
