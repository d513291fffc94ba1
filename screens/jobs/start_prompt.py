"""`StartPrompt`: `a` asks for a shell command to start as a job, as mprocs' `a` does.

Enter starts it, Esc cancels; ctrl+t toggles a terminal (`tty`) job, for a REPL or an
editor. The working directory it will run in is shown, since the screen's session runs
it where the app was started, not where the person last was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static

from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens.widgets.css import stylesheet


@dataclass(frozen=True)
class StartRequest:
    """What the person asked for: the command, and whether it gets a terminal."""

    command: str
    tty: bool


class StartPrompt(ModalScreen[StartRequest | None]):
    """Dismisses with a `StartRequest` on Enter (a command that is not blank), else None."""

    DEFAULT_CSS = stylesheet("start_prompt.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="start.cancel"),
        Binding("ctrl+t", "toggle_tty", "Terminal on/off", id="start.tty"),
    ]

    tty: reactive[bool] = reactive(False)
    """Start it with a terminal (`tty`): the program sees a PTY, the pane emulates it."""

    def __init__(self, cwd: str, *, tty: bool = False) -> None:
        super().__init__()
        self.cwd = cwd
        self.set_reactive(StartPrompt.tty, tty)

    def compose(self) -> ComposeResult:
        with Vertical(id="start-dialog") as dialog:
            dialog.border_title = "Start a job"
            yield Input(placeholder="a shell command, e.g. npm run dev", id="start-command")
            yield Static(id="start-mode")
            yield Static(
                Content.assemble(("in ", "$text-muted"), sanitize_line(self.cwd, 300)),
                id="start-cwd",
            )
        yield Footer()

    def on_mount(self) -> None:
        self._show_mode()
        self.query_one("#start-command", Input).focus()

    def watch_tty(self) -> None:
        if self.is_mounted:
            self._show_mode()

    def _show_mode(self) -> None:
        mode = "with a terminal (for a REPL, an editor)" if self.tty else "output to its log"
        self.query_one("#start-mode", Static).update(
            Content.assemble(("ctrl+t ", "bold $accent"), mode)
        )

    def action_toggle_tty(self) -> None:
        self.tty = not self.tty

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        command = event.value.strip()
        if not command:
            self.notify("Type a command to start, or Esc.", severity="warning")
            return
        self.dismiss(StartRequest(command, self.tty))
