"""`SendBar`: a line typed here goes to an own running job's stdin (Enter sends it).

The bar stays while the job runs. What it sends is echoed into the log view only (dimmed,
after a `›` mark; never written to the job's log), and so are its two keys: ctrl+d
(end of input: the job's stdin is closed, the bar says so) and ctrl+c (SIGINT to the
job's process group, as a terminal's Ctrl-C; not a kill).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Input, Static

from jobs_tui.engine.records.sanitize import sanitize_line

from .css import stylesheet

INPUT_MARK = "›"
EOF_ECHO = "^D (end of input: stdin closed)"
INTERRUPT_ECHO = "^C (SIGINT to the job's process group)"


def echo_line(text: str) -> str:
    """A sent line as the log view shows it: dimmed, after the input mark (SGR: the view
    draws log lines with their colours, and this line is the screen's own)."""
    return f"\x1b[2m{INPUT_MARK} {sanitize_line(text, 2000)}\x1b[22m"


class SendBar(Horizontal):
    """Shown only for an own running job that accepts input; the screen does the sending."""

    DEFAULT_CSS = stylesheet("send_bar.tcss")

    closed: reactive[bool] = reactive(False, init=False)
    """End of input was sent: the job's stdin is closed, nothing more can be typed."""

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

    def watch_closed(self, closed: bool) -> None:
        field = self.input
        field.disabled = closed
        if closed:
            field.value = ""
            field.placeholder = f"stdin of {self.job_id} is closed (end of input sent)"
