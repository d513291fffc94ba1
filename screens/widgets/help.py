"""`HelpScreen`: `?` shows every key of the screen below it, so the footer can stay short."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from .css import stylesheet

KeyHelp = tuple[str, str]  # (the keys as shown, what they do)


def key_rows(app: App[object], bindings: list[BindingType], words: dict[str, str]) -> list[KeyHelp]:
    """One row per action, in the order declared: every key it answers to, and `words` for
    it (else its description). Bindings of one action said in one phrase (`page(-1)` and
    `page(1)`: "a page up / down") share a row: `pgup / pgdn`."""
    rows: list[KeyHelp] = []
    last: tuple[str, str] | None = None  # (action, text) of the row before
    for binding in bindings:
        if not isinstance(binding, Binding):
            continue
        shown = [
            app.get_key_display(Binding(key.strip(), binding.action))
            for key in binding.key.split(",")
        ]
        action = binding.action.split("(")[0]
        text = words.get(binding.action) or words.get(action) or binding.description
        keys = " ".join(dict.fromkeys(shown))
        if rows and last == (action, text):
            rows[-1] = (f"{rows[-1][0]} / {keys}", text)
        else:
            rows.append((keys, text))
        last = (action, text)
    return rows


def help_content(title: str, rows: list[KeyHelp]) -> Content:
    width = max((len(keys) for keys, _ in rows), default=0) + 2
    lines = [Content.styled(title, "bold")]
    for keys, text in rows:
        lines.append(Content.assemble((f"{keys:<{width}}", "bold $accent"), text))
    return Content("\n").join(lines)


class HelpScreen(ModalScreen[None]):
    """Every key of a screen, over it; any of `?`, `Esc`, `q` or Enter closes it."""

    DEFAULT_CSS = stylesheet("help.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,escape,q,enter", "close", "Close", id="help.close"),
    ]

    def __init__(self, title: str, rows: list[KeyHelp]) -> None:
        super().__init__()
        self.help_title = title
        self.rows = rows

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="jobs-help-dialog") as dialog:
            dialog.border_title = "Keys"
            yield Static(help_content(self.help_title, self.rows), id="jobs-help-text")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
