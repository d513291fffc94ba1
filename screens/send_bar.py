"""`SendBar`: a line typed here goes to an own running job's stdin (Enter sends it)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Input, Static

from .css import stylesheet


class SendBar(Horizontal):
    """Shown only for an own running job that accepts input; the screen does the sending."""

    DEFAULT_CSS = stylesheet("send_bar.tcss")

    def __init__(self, job_id: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.job_id = job_id

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("stdin ›", "bold $accent"), id="jobs-send-prompt")
        yield Input(
            placeholder=f"i: type a line for {self.job_id}, Enter sends it, Esc leaves",
            id="jobs-send-input",
        )

    @property
    def input(self) -> Input:
        return self.query_one("#jobs-send-input", Input)
