"""`LogScreen`: one job's log, read from disk: a bounded tail, then followed until you scroll up.

Nothing is read whole: the tail comes from the engine's backwards reader, new
output from the source's follower (one absolute position) polled on a short timer
in bounded batches. Every byte shown has been through the engine's sanitizer (SGR
colours kept, all else stripped).
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState

from jobs_tui.engine import JobError
from jobs_tui.engine.format import lost_note
from jobs_tui.engine.model import JobRecord
from jobs_tui.engine.sanitize import sanitize_line

from .css import stylesheet
from .find_bar import FindBar
from .footer_keys import ApplicableKeys
from .help import HelpScreen, key_rows
from .list_filter import FilterInput, ListFilter
from .log_follow import Follower
from .log_header import OpenedTail, sub_content, tail_note, title_content, title_key
from .log_view import LogView, plain_of
from .pane_keys import find_bindings, scroll_bindings
from .send_bar import EOF_ECHO, INTERRUPT_ECHO, SendBar, echo_line
from .source import Clock, JobSource, wall_clock
from .words import plural

POLL_S = 0.1
FILTER_PLACEHOLDER = "show only lines that contain… (Enter: keep, Esc: every line)"
TAIL_LINES = 2000  # what the engine returns at most in one read


class LogScreen(ApplicableKeys, Screen[None]):
    """Follow, pause, scroll, find, and (own jobs with stdin) send a line."""

    TRACKED = ("follow", "match", "send", "eof", "interrupt")

    following: reactive[bool] = reactive(True, init=False)
    """The view keeps to the tail as output arrives; scrolling up pauses it."""
    new_lines: reactive[int] = reactive(0, init=False)
    """Lines that arrived while paused (the `+N new lines` bar)."""
    wrap: reactive[bool] = reactive(False, init=False)
    """Long lines wrap onto the next rows (`w`) instead of scrolling sideways."""
    loaded: reactive[bool] = reactive(False, init=False)
    """The tail is shown and followed."""
    problem: reactive[str] = reactive("", init=False)
    """Why the log cannot be shown (sanitized), instead of the pane's state."""
    skipped: reactive[int] = reactive(0, init=False)
    """Bytes passed over to keep up with a writer faster than the screen."""
    times: reactive[bool] = reactive(False, init=False)
    """Each line's time beside it (`T`), from the engine's time index."""
    filter_text: reactive[str] = reactive("", init=False)
    """Filter mode (`&`): only the lines containing it are shown (smart case)."""

    AUTO_FOCUS = ""  # keys belong to the screen until the user opens a field

    DEFAULT_CSS = stylesheet("log_screen.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        *scroll_bindings("log"),
        Binding("left,h", "pan(-1)", "Left", show=False, id="log.left"),
        Binding("right,l", "pan(1)", "Right", show=False, id="log.right"),
        *find_bindings("log"),
        Binding("w", "toggle_wrap", "Wrap", id="log.wrap"),
        Binding("i", "send", "Send a line", id="log.send"),
        # priority: they reach the screen before the input bar's own ctrl+d / ctrl+c
        Binding("ctrl+d", "eof", "EOF", priority=True, id="log.eof"),
        Binding("ctrl+c", "interrupt", "Interrupt", priority=True, id="log.interrupt"),
        Binding("T", "toggle_times", "Times", show=False, id="log.times"),
        Binding("ampersand", "filter", "Filter", show=False, key_display="&", id="log.filter"),
        Binding("question_mark", "help", "Keys", key_display="?", id="log.help"),
        Binding("q,escape,backspace", "back", "Back", id="log.back"),
    ]
    HELP: ClassVar[dict[str, str]] = {
        "scroll(-1)": "scroll up (pauses following)",
        "scroll(1)": "scroll down",
        "page": "a page up / down",
        "top": "the top of the loaded log",
        "follow": "follow the tail again",
        "pan": "scroll long lines sideways",
        "find": "find (smart case)",
        "match(1)": "next match",
        "match(-1)": "previous match",
        "toggle_wrap": "wrap long lines (again: unwrap)",
        "send": "type a line for the job's stdin",
        "eof": "end the job's input (closes its stdin)",
        "interrupt": "Ctrl-C: SIGINT to the job's process group (not a kill)",
        "toggle_times": "show when each line was written (again: hide)",
        "filter": "show only the lines that contain a text (Esc: all lines)",
        "help": "this list of keys",
        "back": "back to the list (closes find or a filter first)",
    }

    def __init__(
        self,
        source: JobSource,
        job_id: str,
        *,
        clock: Clock | None = None,
        tail_lines: int = TAIL_LINES,
        max_lines: int = 10_000,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id)
        self.source = source
        self.job_id = job_id
        self.clock: Clock = clock or wall_clock
        self.tail_lines = max(1, min(tail_lines, TAIL_LINES))
        self.max_lines = max(max_lines, self.tail_lines)
        self.log_path = ""
        self._tail: OpenedTail | None = None
        self._lost: tuple[int, str | None] | None = None  # (bytes, why) the pane last named
        self._follower: Follower | None = None
        self._record: JobRecord | None = None
        self._title_key: object = None

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="jobs-log-title")
        yield Static(id="jobs-log-sub")
        yield LogView(self.max_lines, id="jobs-log-view")
        yield LogView(self.max_lines, id="jobs-log-filtered", classes="-hidden")
        yield Static(id="jobs-new-lines")
        yield FindBar(id="jobs-find-bar")
        yield ListFilter("&", FILTER_PLACEHOLDER, id="jobs-line-filter")
        record = self._get()
        if record is not None and self._can_send(record):
            yield SendBar(self.job_id, id="jobs-send-bar")
        yield Footer()

    @property
    def view(self) -> LogView:
        """The view on screen: every line, or in filter mode only the matching ones."""
        return self.query_one(
            "#jobs-log-filtered" if self.filter_text else "#jobs-log-view", LogView
        )

    @property
    def main_view(self) -> LogView:
        """Every line held (the filter view is rebuilt from it)."""
        return self.query_one("#jobs-log-view", LogView)

    @property
    def find_bar(self) -> FindBar:
        return self.query_one(FindBar)

    def _get(self) -> JobRecord | None:
        try:
            self._record = self.source.get(self.job_id)
        except JobError:
            self._record = None
        return self._record

    def _can_send(self, record: JobRecord) -> bool:
        return self.source.is_own(record) and record.running and (record.stdin or record.tty)

    def on_mount(self) -> None:
        self._show_title(force=True)
        self._show_sub()
        self.run_worker(self._load(), name="open log", group="log", exit_on_error=False)

    # -- reading -----------------------------------------------------------------------
    async def _load(self) -> None:
        record = self._get()
        if record is None:
            self._fail(f"{self.job_id} is no longer in the job table.")
            return
        try:
            result = await self.source.logs(
                self.job_id, lines=self.tail_lines, keep_sgr=True, timestamps=True
            )
            lines = list(result.lines)
            times: list[int | None] = list(getattr(result, "times", None) or [])
            partial = getattr(result, "partial_bytes", 0)
            position = getattr(result, "position", None)
            if position is not None and 0 < partial <= position:
                # the unfinished last line is the follower's: it re-reads its bytes, so what
                # comes next joins it exactly as a fresh open would show it
                lines = lines[:-1]
                self.main_view.partial_time = times[len(lines)] if len(times) > len(lines) else None
                log = self.source.follow(self.job_id, position - partial)
            elif position is not None:  # continue exactly where the tail ended
                log, partial = self.source.follow(self.job_id, position), 0
            else:  # a source that cannot say: from the end as it is now (may skip, never repeat)
                log, partial = self.source.follow(self.job_id), 0
        except JobError as exc:
            self._fail(sanitize_line(str(exc), 300))
            return
        self._follower = Follower(log, partial)
        self.log_path = result.log_file
        self._tail = OpenedTail.of(result)
        self.main_view.load(lines, times[: len(lines)] if len(times) >= len(lines) else None)
        self.loaded = True
        self._poll()  # the unfinished line, at once
        self.view.follow_end()
        self.set_interval(POLL_S, self._poll)

    def _fail(self, message: str) -> None:
        self.problem = message

    def _poll(self) -> None:
        if self._follower is None:
            return
        batch = self._follower.poll()
        self.skipped += batch.skipped
        main = self.main_view
        if batch.lines or batch.partial != main.partial or batch.skipped:
            # lines that arrive now are dated now (the index dates the tail read at open)
            stamp = int(self.clock())
            if batch.partial and not main.partial:
                main.partial_time = stamp
            dropped = main.append(batch.lines, batch.partial, [stamp] * len(batch.lines))
            if not batch.partial:
                main.partial_time = None
            arrived = len(batch.lines)
            if self.filter_text:
                picked = [line for line in batch.lines if self._shows(line)]
                dropped = self.view.append(picked, "", [stamp] * len(picked))
                arrived = len(picked)
            if self.following:
                self.view.follow_end()
            else:
                if dropped:
                    self.view.jump(self.view.scroll_y - dropped)
                self.new_lines += arrived
            if self.view.query_text:
                self._show_count()
            self._show_sub()
        self._show_title()
        record = self._record
        lost = None if record is None else (record.log_lost_bytes, record.log_note)
        if lost != self._lost:  # output lost since the last look (a full disk): say so now
            self._lost = lost
            self._show_sub()

    # -- header lines ------------------------------------------------------------------
    def _show_title(self, force: bool = False) -> None:
        now = self.clock()
        record = self._get()
        key = title_key(record, now, self.source.config.repaint_ms)
        if not force and key == self._title_key:
            return
        self._title_key = key
        peer = record is not None and not self.source.is_own(record)
        title = self.query_one("#jobs-log-title", Static)
        title.update(title_content(record, self.job_id, now, peer=peer), layout=False)
        if record is None:
            return
        if not record.running and self.query(SendBar):
            self.query_one(SendBar).remove()
        if not record.running and self.loaded and not record.seen:
            mark_seen = getattr(self.source, "mark_seen", None)
            if mark_seen is not None:  # it ended before the user's eyes: nothing unreported
                mark_seen(record.id)
        self._update_bindings()

    def _show_sub(self) -> None:
        sub = self.query_one("#jobs-log-sub", Static)
        if self.problem:
            sub.update(Content.styled(self.problem, "$error"))
        elif not self.loaded:
            sub.update(Content.styled("reading the log…", "$text-muted"))
        else:
            content = sub_content(
                following=self.following,
                wrap=self.wrap,
                new_lines=self.new_lines,
                note=self.tail_note,
                skipped=self.skipped,
                path=self.log_path,
                width=self.size.width,
            )
            sub.update(content, layout=False)
        indicator = self.query_one("#jobs-new-lines", Static)
        show = self.loaded and not self.following and self.new_lines > 0
        indicator.set_class(show, "-shown")
        if show:
            indicator.update(
                Content.assemble(
                    (f"+{plural(self.new_lines, 'new line')}", "bold"),
                    "  End, G or f follows the tail",
                )
            )
        self._update_bindings()

    # -- following and scrolling -------------------------------------------------------
    @property
    def tail_note(self) -> str:
        """What the pane shows of the log, worded for the rows it holds now."""
        if self._tail is None:
            return ""
        view = self.view
        tail = self._tail
        if self._record is not None:  # output lost since the open (a full disk) is named now
            tail = dataclasses.replace(tail, note=lost_note(self._record))
        main = self.main_view
        note = tail_note(tail, main.line_count + bool(main.partial), main.base)
        if self.filter_text:
            shown = plural(view.line_count, "line")
            note = f"{shown} with {self.filter_text!r}" + (f" · {note}" if note else "")
        return note

    def watch_following(self) -> None:
        self._show_sub()

    def watch_new_lines(self) -> None:
        self._show_sub()

    def watch_loaded(self) -> None:
        self._show_sub()

    def watch_problem(self) -> None:
        self._show_sub()

    def watch_skipped(self) -> None:
        self._show_sub()

    def _pause(self) -> None:
        if self.following:
            self.new_lines = 0
            self.following = False

    def on_resize(self) -> None:
        self._show_sub()

    def on_log_view_scrolled_up(self, _message: LogView.ScrolledUp) -> None:
        if self.loaded:
            self._pause()

    def action_scroll(self, delta: int) -> None:
        if delta < 0:
            self._pause()
        self.view.jump(self.view.scroll_y + delta)

    def action_page(self, direction: int) -> None:
        if direction < 0:
            self._pause()
        step = max(1, self.view.scrollable_content_region.height - 1)
        self.view.jump(self.view.scroll_y + direction * step)

    def action_top(self) -> None:
        self._pause()
        self.view.jump(0)

    def action_follow(self) -> None:
        self.new_lines = 0
        self.following = True
        self.view.jump(self.view.scroll_y, x=0)
        self.view.follow_end()

    def action_pan(self, direction: int) -> None:
        self.view.pan(direction)

    def action_toggle_wrap(self) -> None:
        self.wrap = not self.wrap

    def watch_wrap(self, wrap: bool) -> None:
        for view in self.query(LogView):
            view.wrap = wrap
        if self.following:
            self.view.follow_end()
        self._show_sub()

    def action_toggle_times(self) -> None:
        self.times = not self.times

    def watch_times(self, times: bool) -> None:
        for view in self.query(LogView):
            view.show_times = times
        if self.following:
            self.view.follow_end()

    def action_help(self) -> None:
        rows = key_rows(self.app, list(type(self).BINDINGS), self.HELP)
        self.app.push_screen(HelpScreen("The log pane", rows))

    # -- filter mode (`&`): only the lines that match ------------------------------------
    def _shows(self, line: str) -> bool:
        text = self.filter_text
        plain = plain_of(line)
        return text in (plain.lower() if text == text.lower() else plain)

    def action_filter(self) -> None:
        self.query_one(ListFilter).open()

    def _close_filter(self) -> None:
        self.query_one(ListFilter).close()
        self.filter_text = ""
        self.set_focus(None)

    def on_filter_input_cancelled(self, _message: FilterInput.Cancelled) -> None:
        self._close_filter()

    def watch_filter_text(self, text: str) -> None:
        main = self.main_view
        filtered = self.query_one("#jobs-log-filtered", LogView)
        if text:
            lines, times = main.matching(text)
            filtered.load(lines, times)
            self.query_one(ListFilter).show_count(len(lines), main.line_count)
        main.set_class(bool(text), "-hidden")
        filtered.set_class(not text, "-hidden")
        self.new_lines = 0
        self.following = True
        self.view.search(self.find_bar.input.value, near_line=None)
        self.view.follow_end()
        self._show_sub()

    # -- find --------------------------------------------------------------------------
    def action_find(self) -> None:
        self.find_bar.open()

    def _close_find(self) -> None:
        self.find_bar.close()
        self.view.search("")
        self.set_focus(None)
        self._update_bindings()

    def _show_count(self) -> None:
        view = self.view
        self.find_bar.show_count(view.current, len(view.matches), view.query_text)

    def _goto_current_match(self) -> None:
        if self.view.current_match_line() is not None:
            self._pause()
            self.view.show_current_match()

    def action_match(self, delta: int) -> None:
        if not self.view.query_text:
            self.notify("Nothing to find yet: press / and type.", markup=False)
            return
        if not self.view.matches:
            self.notify(f"No matches for {self.view.query_text!r}.", markup=False)
            return
        self.view.step_match(delta)
        self._goto_current_match()
        self._show_count()

    # -- send --------------------------------------------------------------------------
    def action_send(self) -> None:
        bars = self.query(SendBar)
        if not bars:
            record = self._record
            if record is not None and not self.source.is_own(record):
                why = f"{self.job_id} is another session's job; nothing was sent."
            elif record is not None and not record.running:
                why = f"{self.job_id} has finished; nothing was sent."
            else:
                why = f"{self.job_id} was not started with stdin; nothing was sent."
            self.notify(why, markup=False)
            return
        bars.first().input.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "jobs-line-filter-input":
            self.filter_text = event.value
        elif event.input.id == "jobs-find-input":
            self.view.search(event.value, near_line=self.view.bottom_line())
            self._goto_current_match()
            self._show_count()
            self._update_bindings()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id in ("jobs-find-input", "jobs-line-filter-input"):
            self.set_focus(None)
        elif event.input.id == "jobs-send-input":
            event.input.value = ""
            self.run_worker(
                self._send(event.value), name="send", group="log-send", exit_on_error=False
            )

    async def _send(self, text: str) -> None:
        self._echo(text)  # first: the job's answer comes after it, as on a terminal
        try:
            await self.source.send(self.job_id, text)
        except JobError as exc:
            self.notify(sanitize_line(str(exc), 300), severity="error", markup=False)

    def _echo(self, text: str) -> None:
        """What the bar sends, in the view (not in the log): dimmed, after the input mark;
        shown as it is sent, so what the job answers comes after it (a failure is notified)."""
        line, stamp = echo_line(text), int(self.clock())
        main = self.main_view
        dropped = main.append([line], main.partial, [stamp])
        if self.filter_text:
            shown = self._shows(line)
            dropped = self.view.append([line] if shown else [], "", [stamp] if shown else [])
        if self.following:
            self.view.follow_end()
        elif dropped:
            self.view.jump(self.view.scroll_y - dropped)

    def _bar_key(self) -> SendBar | None:
        """The input bar a ctrl+d / ctrl+c is for: None lets the key go on (to a find or
        filter field that has focus: its own ctrl+d and ctrl+c)."""
        focused = self.focused
        if isinstance(focused, Input) and focused.id != "jobs-send-input":
            raise SkipAction()
        bars = self.query(SendBar)
        if not bars:
            self.notify(f"{self.job_id} takes no input here; nothing was sent.", markup=False)
            return None
        return bars.first()

    def action_eof(self) -> None:
        bar = self._bar_key()
        if bar is None or bar.closed:
            return
        self.run_worker(self._eof(bar), name="end of input", group="log-send", exit_on_error=False)

    async def _eof(self, bar: SendBar) -> None:
        self._echo(EOF_ECHO)
        try:
            await self.source.send(self.job_id, None, newline=False, eof=True)
        except JobError as exc:
            self.notify(sanitize_line(str(exc), 300), severity="error", markup=False)
            return
        bar.closed = True
        self.set_focus(None)
        self._update_bindings()

    def action_interrupt(self) -> None:
        if self._bar_key() is None:
            return
        self.run_worker(self._interrupt(), name="ctrl-c", group="log-send", exit_on_error=False)

    async def _interrupt(self) -> None:
        interrupt = getattr(self.source, "interrupt", None)
        if interrupt is None:
            self.notify("This job source cannot interrupt a job.", markup=False)
            return
        self._echo(INTERRUPT_ECHO)
        try:
            result = await interrupt(self.job_id)
        except JobError as exc:
            self.notify(sanitize_line(str(exc), 300), severity="error", markup=False)
            return
        if result.note:
            self.notify(sanitize_line(result.note, 300), markup=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.group in ("log", "log-send"):
            self.notify(
                sanitize_line(f"{event.worker.name} failed: {event.worker.error}", 300),
                severity="error",
                markup=False,
            )
            if event.worker.group == "log":
                self._fail(sanitize_line(f"could not read the log: {event.worker.error}", 300))

    # -- back --------------------------------------------------------------------------
    def action_back(self) -> None:
        focused = self.focused
        if isinstance(focused, Input):
            if focused.id == "jobs-find-input":
                self._close_find()
            else:
                self.set_focus(None)
            return
        if self.find_bar.is_open:
            self._close_find()
            return
        if self.filter_text or self.query_one(ListFilter).has_class("-open"):
            self._close_filter()
            return
        self.dismiss(None)

    # -- footer ------------------------------------------------------------------------
    def _applicable(self, action: str) -> bool:
        if action == "follow":
            return not self.following
        if action == "match":
            return bool(self.view.query_text)
        if action == "send":
            return bool(self.query(SendBar))
        if action in ("eof", "interrupt"):
            bars = self.query(SendBar)
            return bool(bars) and not (action == "eof" and bars.first().closed)
        return True
