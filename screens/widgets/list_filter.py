"""`ListFilter`: the list's `/` field: only jobs whose id, label or command contain the text."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.sanitize import sanitize_line

from .css import stylesheet
from .field_bar import FieldBar


def matches(record: JobRecord, text: str) -> bool:
    """Smart case, as the log pane's find: an all-lowercase text ignores case. The label and
    command are matched as the screen shows them (sanitized)."""
    if not text:
        return True
    fold = text == text.lower()
    for value in (record.id, sanitize_line(record.label), sanitize_line(record.command, 2000)):
        if text in (value.lower() if fold else value):
            return True
    return False


class FilterInput(Input):
    """Esc clears the filter and closes the field (before any screen binding sees it)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Clear filter", id="jobs.filter-clear"),
    ]

    class Cancelled(Message):
        """The user closed the filter with Esc."""

    def action_cancel(self) -> None:
        self.post_message(self.Cancelled())


LIST_PLACEHOLDER = "filter jobs by id, label or command (Enter: keep, Esc: clear)"


class ListFilter(FieldBar):
    """Hidden until its key; the screen holds the filter text (its `filter_text` reactive).
    The list's `/` and the log pane's `&` (only matching lines) are both one."""

    DEFAULT_CSS = stylesheet("list_filter.tcss")

    def __init__(
        self, prompt: str = "/", placeholder: str = LIST_PLACEHOLDER, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.prompt = prompt
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        yield Static(Content.styled(self.prompt, "bold $accent"), classes="filter-prompt")
        yield FilterInput(placeholder=self.placeholder, id=f"{self.id or 'jobs-filter'}-input")
        yield Static(classes="filter-count")

    @property
    def input(self) -> FilterInput:
        return self.query_one(FilterInput)

    def show_count(self, shown: int, total: int, unit: str = "") -> None:
        """`3 of 40` (`unit` after it, such as ` loaded lines`)."""
        text = f"{shown} of {total}{unit}"
        style = "$error" if total and not shown else "bold"
        self.query_one(".filter-count", Static).update(Content.styled(text, style))
