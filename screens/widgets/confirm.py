"""`ConfirmScreen`: a y/N question; only `y` says yes, so a stray key cannot kill a build."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from .css import stylesheet

MOOT_CHECK_S = 0.2


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True on `y`, False on `n`, Enter or Esc."""

    DEFAULT_CSS = stylesheet("confirm.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,Y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,N,enter,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(
        self,
        question: str,
        detail: str = "",
        *,
        title: str = "Confirm",
        moot: Callable[[], str | None] | None = None,
    ) -> None:
        """`moot`: asked a few times a second; a text means the question no longer stands
        (the job it would kill has ended): the dialog closes as a No and says the text."""
        super().__init__()
        self.question = question
        self.detail = detail
        self.dialog_title = title
        self.moot = moot

    def on_mount(self) -> None:
        if self.moot is not None:
            self.set_interval(MOOT_CHECK_S, self._check_moot)

    def _check_moot(self) -> None:
        said = self.moot() if self.moot is not None else None
        if said is not None and self.is_current:
            self.app.notify(said, markup=False)
            self.dismiss(False)

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
