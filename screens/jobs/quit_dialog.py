"""`QuitScreen`: quitting while jobs started here run: kill them, leave them running, or stay.

A third answer beside the y/N: `l` quits and leaves them running (detached, as if started
with `--detached`). Only `y` kills, so a stray key cannot end a build; Enter and Esc stay.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Footer, Static

from jobs_tui.screens.widgets.confirm import ConfirmScreen

QuitAnswer = Literal["kill", "leave"] | None


class QuitScreen(ConfirmScreen, inherit_bindings=False):
    """Dismisses with "kill" on `y`, "leave" on `l`, None (stay) on `n`, Enter or Esc."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,Y", "choose('kill')", "Kill and quit", id="quit.kill"),
        Binding("l,L", "choose('leave')", "Leave running", id="quit.leave"),
        Binding("n,N,enter,escape", "choose('')", "Stay", id="quit.stay"),
    ]

    def __init__(self, question: str, detail: str = "", *, title: str = "Quit") -> None:
        super().__init__(question, detail, title=title)

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog") as dialog:
            dialog.border_title = self.dialog_title
            yield Static(Content(self.question), id="confirm-question")
            if self.detail:
                yield Static(Content(self.detail), id="confirm-detail")
            yield Static(
                Content.assemble(
                    ("y", "bold $error"),
                    " kill and quit   ",
                    ("l", "bold $success"),
                    " leave running and quit   ",
                    ("N", "bold $primary"),
                    " stay",
                ),
                id="confirm-keys",
            )
        yield Footer()

    def action_choose(self, answer: str) -> None:
        self.dismiss(answer or None)  # type: ignore[arg-type]
