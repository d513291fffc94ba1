"""`FindBar`: the log pane's `/` search field and its `i of n` counter."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Input, Static

from .css import stylesheet
from .field_bar import FieldBar


def count_text(current: int, total: int, query: str, more: str = "") -> Content:
    """`i of n` (`more` after it: what the count leaves out, such as `+`)."""
    if not query:
        return Content.styled("type to find", "$text-muted")
    if not total:
        return Content.styled("no matches", "$error")
    return Content.styled(f"{current + 1} of {total}{more}", "bold")


class FindBar(FieldBar):
    """Hidden until `/`; the screen owns the search itself."""

    DEFAULT_CSS = stylesheet("find_bar.tcss")

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("/", "bold $accent"), id="jobs-find-prompt")
        yield Input(
            placeholder="find in the loaded log (n / N: next / previous)", id="jobs-find-input"
        )
        yield Static(count_text(0, 0, ""), id="jobs-find-count")

    @property
    def input(self) -> Input:
        return self.query_one("#jobs-find-input", Input)

    def show_count(self, current: int, total: int, query: str, more: str = "") -> None:
        count = count_text(current, total, query, more)
        self.query_one("#jobs-find-count", Static).update(count)
