"""`ConfirmScreen`: a y/N question; only `y` says yes, so a stray key cannot kill a build."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from .css import stylesheet


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True on `y`, False on `n`, Enter or Esc."""

    DEFAULT_CSS = stylesheet("confirm.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,Y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,N,enter,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str, detail: str = "", *, title: str = "Confirm") -> None:
        super().__init__()
        self.question = question
        self.detail = detail
        self.dialog_title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog") as dialog:
            dialog.border_title = self.dialog_title
            yield Static(Content(self.question), id="confirm-question")
            if self.detail:
                yield Static(Content(self.detail), id="confirm-detail")
            yield Static(
                Content.assemble(("y", "bold $success"), " yes   ", ("N", "bold $error"), " no"),
                id="confirm-keys",
            )
        yield Footer()  # the dialog's keys only, over the screen's own footer

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
