"""`JobInput`: the log pane's input bar sends its job a line, end of input, or Ctrl-C.

Each is echoed into the view first and runs in a worker that cannot exit the host;
a refusal or a failure is a notification.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.actions import SkipAction
from textual.screen import Screen
from textual.widgets import Input

from jobs_tui.engine import JobError
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens.widgets.send_bar import EOF_ECHO, INTERRUPT_ECHO, SendBar
from jobs_tui.screens.widgets.source import JobSource
from jobs_tui.screens.widgets.supervising import ask_peer, may_act, peer_of


class JobInput:
    """Owned by the screen: `echo` shows a sent line in the view, `changed` repaints the footer.

    Workers run in the screen's groups `log-send`, so the screen reports their failures.
    """

    def __init__(
        self,
        screen: Screen[None],
        source: JobSource,
        job_id: str,
        *,
        echo: Callable[[str], None],
        changed: Callable[[], None],
        supervise: bool = False,
    ) -> None:
        """`supervise`: another session's job takes input too, after one y/N naming whose
        it is (asked once per pane); `source` is then the screen's `Supervising` one."""
        self.screen = screen
        self.source = source
        self.job_id = job_id
        self.echo = echo
        self.changed = changed
        self.supervise = supervise
        self.confirmed = False  # the y/N for another session's job was answered yes

    def accepts(self, record: JobRecord) -> bool:
        """A running job of ours (any session's with `supervise`) started with stdin (or a
        terminal): the pane shows the bar."""
        ours = may_act(self.source, record, self.supervise)
        return ours and record.running and (record.stdin or record.tty)

    def _asked(self, then: Callable[[], None]) -> None:
        """`then` now for our own job (or once answered); else the one y/N for a peer's
        (a line, end of input and ctrl+c alike: each is input to it)."""
        try:
            record = self.source.get(self.job_id)
        except JobError:
            record = None
        if self.confirmed or record is None or not peer_of(self.source, record):
            then()
            return

        def yes() -> None:
            self.confirmed = True
            then()

        what = "what you send (a line, ctrl+d, ctrl+c) goes to it"
        ask_peer(self.screen.app, record, "Send to it", what, yes)

    def applicable(self, action: str) -> bool:
        """`send`, `eof` and `interrupt` show in the footer while there is a bar (`eof`: open)."""
        bars = self.screen.query(SendBar)
        return bool(bars) and not (action == "eof" and bars.first().closed)

    def _failed(self, exc: JobError) -> None:
        self.screen.notify(sanitize_line(str(exc), 300), severity="error", markup=False)

    def open(self, record: JobRecord | None) -> None:
        """`i`: into the input bar, or why there is none."""
        bars = self.screen.query(SendBar)
        if not bars:
            if record is not None and not may_act(self.source, record, self.supervise):
                why = f"{self.job_id} is another session's job; nothing was sent."
            elif record is not None and not record.running:
                why = f"{self.job_id} has finished; nothing was sent."
            else:
                why = f"{self.job_id} was not started with stdin; nothing was sent."
            self.screen.notify(why, markup=False)
            return
        bar = bars.first()
        self._asked(bar.input.focus)

    def submit(self, text: str) -> None:
        """Enter in the bar: the line goes to the job's stdin."""
        self._asked(
            lambda: self.screen.run_worker(
                self._send(text), name="send", group="log-send", exit_on_error=False
            )
        )

    async def _send(self, text: str) -> None:
        self.echo(text)  # first: the job's answer comes after it, as on a terminal
        try:
            await self.source.send(self.job_id, text)
        except JobError as exc:
            self._failed(exc)

    def _bar_key(self) -> SendBar | None:
        """The input bar a ctrl+d / ctrl+c is for: None lets the key go on (to a find or
        filter field that has focus: its own ctrl+d and ctrl+c)."""
        focused = self.screen.focused
        if isinstance(focused, Input) and focused.id != "jobs-send-input":
            raise SkipAction()
        bars = self.screen.query(SendBar)
        if not bars:
            self.screen.notify(
                f"{self.job_id} takes no input here; nothing was sent.", markup=False
            )
            return None
        return bars.first()

    def end(self) -> None:
        """ctrl+d: end of input (the job's stdin is closed; the bar says so)."""
        bar = self._bar_key()
        if bar is None or bar.closed:
            return
        self._asked(
            lambda: self.screen.run_worker(
                self._eof(bar), name="end of input", group="log-send", exit_on_error=False
            )
        )

    async def _eof(self, bar: SendBar) -> None:
        self.echo(EOF_ECHO)
        try:
            await self.source.send(self.job_id, None, newline=False, eof=True)
        except JobError as exc:
            self._failed(exc)
            return
        bar.closed = True
        self.screen.set_focus(None)
        self.changed()

    def interrupt(self) -> None:
        """ctrl+c: SIGINT to the job's process group (not a kill)."""
        if self._bar_key() is None:
            return
        self._asked(
            lambda: self.screen.run_worker(
                self._interrupt(), name="ctrl-c", group="log-send", exit_on_error=False
            )
        )

    async def _interrupt(self) -> None:
        interrupt = getattr(self.source, "interrupt", None)
        if interrupt is None:
            self.screen.notify("This job source cannot interrupt a job.", markup=False)
            return
        self.echo(INTERRUPT_ECHO)
        try:
            result = await interrupt(self.job_id)
        except JobError as exc:
            self._failed(exc)
            return
        if result.note:
            self.screen.notify(sanitize_line(result.note, 300), markup=False)
