"""`TerminalScreen`: a PTY job's emulated screen, its scrollback, and typing straight into it.

The job's screen is rebuilt by a terminal emulator (`TerminalView`, fed the raw log);
nothing of the job's output reaches the real terminal but rendered cells. View mode
scrolls the scrollback and finds text in it, as the log pane does; interactive mode
(`i`, this session's running jobs only) sends every key to the job encoded as a
terminal would (`keyencode`), pastes as bracketed paste when the program asked for
it, and keeps the job's terminal the size of the pane. `ctrl+]` (binding id
`term.leave`, rebindable in the app's keymap) is the one key it keeps for itself.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState

from jobs_tui.engine import JobError
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens.widgets.css import stylesheet
from jobs_tui.screens.widgets.find_bar import FindBar
from jobs_tui.screens.widgets.footer_keys import ApplicableKeys
from jobs_tui.screens.widgets.help import HelpScreen, key_rows
from jobs_tui.screens.widgets.outcome import title_content, title_key
from jobs_tui.screens.widgets.pane_verbs import PaneVerbs
from jobs_tui.screens.widgets.source import Clock, JobSource, wall_clock
from jobs_tui.screens.widgets.supervising import acting_source, ask_peer, peer_of

from . import keys as terminal_keys
from .find import TermFind
from .header import sub_content
from .keyencode import encode_key, encode_paste
from .replay import open_terminal, term_size
from .typing_view import LEAVE_KEY, PASTE_MAX, KeySender, TypingView, key_words
from .view import TerminalView

TICK_S = 0.25  # the header's clock and the job's state


class TerminalScreen(PaneVerbs, ApplicableKeys, Screen[None]):
    """A tty job's screen: scroll, find, and (own running jobs) type into it with `i`."""

    TRACKED = terminal_keys.TRACKED
    AUTO_FOCUS = ""  # keys belong to the screen until the user types into the job

    interactive: reactive[bool] = reactive(False, init=False)
    """Every key goes to the job (the view is focused and claims them), but the leave key."""
    following: reactive[bool] = reactive(True, init=False)
    """The view keeps to the bottom of the screen; scrolling up pauses it."""
    loaded: reactive[bool] = reactive(False, init=False)
    """The job's screen is rebuilt and followed."""
    problem: reactive[str] = reactive("", init=False)
    """Why the terminal cannot be shown (sanitized)."""

    DEFAULT_CSS = stylesheet("terminal_screen.tcss")
    BINDINGS: ClassVar[list[BindingType]] = terminal_keys.BINDINGS
    HELP: ClassVar[dict[str, str]] = terminal_keys.HELP

    def __init__(
        self,
        source: JobSource,
        job_id: str,
        *,
        clock: Clock | None = None,
        supervise: bool = False,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        """`supervise`: another session's job may be typed into too, after one y/N naming
        whose it is (`JobsScreen`'s flag); it is not taken over."""
        super().__init__(name=name, id=id)
        self.source = source
        self.job_id = job_id
        self.clock: Clock = clock or wall_clock
        self.supervise = supervise
        self._peer_typing = False  # the y/N for another session's job was answered yes
        self._record: JobRecord | None = None
        self._title_key: object = None
        self.sender = KeySender(acting_source(source, supervise), job_id, self._typing_failed)
        self.finder = TermFind()

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="jobs-term-title")
        yield Static(id="jobs-term-sub")
        yield TypingView(job_id=self.job_id, id="jobs-term-view")
        yield FindBar(id="jobs-find-bar")
        yield Footer()

    @property
    def view(self) -> TypingView:
        return self.query_one(TypingView)

    @property
    def find_bar(self) -> FindBar:
        return self.query_one(FindBar)

    def _get(self) -> JobRecord | None:
        try:
            self._record = self.source.get(self.job_id)
        except JobError:
            self._record = None
        return self._record

    def on_mount(self) -> None:
        self._show_title(force=True)
        self._show_sub()
        self.set_interval(TICK_S, self._tick)
        self.run_worker(self._load(), name="open terminal", group="term", exit_on_error=False)

    # -- header ------------------------------------------------------------------------
    def _show_title(self, force: bool = False) -> None:
        now = self.clock()
        record = self._get()
        key = title_key(record, now, self.source.config.repaint_ms)
        if not force and key == self._title_key:
            return
        self._title_key = key
        peer = record is not None and not self.source.is_own(record)
        title = self.query_one("#jobs-term-title", Static)
        title.update(title_content(record, self.job_id, now, peer=peer), layout=False)
        self._update_bindings()

    def _show_sub(self) -> None:
        sub = self.query_one("#jobs-term-sub", Static)
        if self.problem:
            sub.update(Content.styled(self.problem, "$error"))
            return
        if not self.loaded:
            sub.update(Content.styled("reading the terminal…", "$text-muted"))
            return
        model = self.view.model
        sub.update(
            sub_content(
                interactive=self.interactive,
                following=self.following,
                size=(model.cols, model.rows),
                history=model.history_len(),
                leave_key=self.leave_key(),
                skipped=self.view.skipped,
            ),
            layout=False,
        )

    def leave_key(self) -> str:
        """The leave key as a user reads it (`ctrl+]`), after the app's keymap."""
        for key, active in self.active_bindings.items():
            if active.binding.id == "term.leave":
                return key_words(key)
        return key_words(LEAVE_KEY)

    def _tick(self) -> None:
        self._show_title()
        self.following = self.view.following  # the mouse may have scrolled it
        record = self._record
        if self.interactive and (record is None or not record.running):
            self.interactive = False
            self.notify(f"{self.job_id} has ended; typing into it stopped.", markup=False)
        ended = record is not None and not record.running and not record.seen
        mark_seen = getattr(self.source, "mark_seen", None)
        if ended and self.loaded and mark_seen is not None:  # it ended before the user's eyes
            mark_seen(record.id)
        self._show_sub()

    def watch_following(self) -> None:
        self._show_sub()

    def watch_loaded(self) -> None:
        self._show_sub()

    def watch_problem(self) -> None:
        self._show_sub()

    # -- opening -----------------------------------------------------------------------
    async def _load(self) -> None:
        record = self._get()
        if record is None:
            self.problem = f"{self.job_id} is no longer in the job table."
            return
        cols, rows = term_size(record)  # as last set, in any session (the record's)
        if record.term_cols and record.term_rows:
            self.sender.size = (cols, rows)  # typing resizes only to another size
        try:
            model, follow = await open_terminal(self.source, self.job_id, cols, rows)
        except JobError as exc:
            self.problem = sanitize_line(str(exc), 300)
            return
        view = self.view
        view.replace_model(model)
        view.follow_log(follow)
        self.loaded = True

    # -- typing into the job -----------------------------------------------------------
    def _cannot_type(self, record: JobRecord | None) -> str | None:
        """Why `i` does not start typing mode now (None: it may)."""
        return terminal_keys.cannot_type(
            self.source, self.job_id, record, self.loaded, self.supervise
        )

    def action_interactive(self) -> None:
        record = self._get()
        why = self._cannot_type(record)
        if why is not None:
            self.notify(why, severity="warning", markup=False)
            return
        if record is not None and peer_of(self.source, record) and not self._peer_typing:
            self._ask_to_type(record)
            return
        self.interactive = True

    def _ask_to_type(self, record: JobRecord) -> None:
        """Another session's job (`supervise`): one y/N naming whose it is, once per pane."""

        def yes() -> None:
            self._peer_typing = True
            self.action_interactive()  # checked again: it may have ended meanwhile

        what = f"every key goes to it until {self.leave_key()}"
        ask_peer(self.app, record, "Type into it", what, yes)

    def action_leave(self) -> None:
        self.interactive = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave":  # the footer shows the leave key only while typing
            return self.interactive
        return True

    def watch_interactive(self, interactive: bool) -> None:
        view = self.view
        if interactive:
            if self.find_bar.is_open:
                self._close_find()
            self.set_focus(view)  # now, so the leave key is read from the view's bindings
            view.leave_key = self.leave_key()
            view.interactive = True
            self.action_follow()
            self._fit_job()
        else:  # keys typed before leaving still go out, in order
            view.interactive = False
            self.set_focus(None)
        self._show_sub()
        self._update_bindings()

    def on_typing_view_typed(self, message: TypingView.Typed) -> None:
        message.stop()
        data = encode_key(message.key, message.character, self.view.model.modes)
        if data:
            self._type(data)

    def on_typing_view_pasted(self, message: TypingView.Pasted) -> None:
        message.stop()
        data = encode_paste(message.text, self.view.model.modes)
        if len(data) > PASTE_MAX:
            size = f"{len(data) / 1024:.0f} KiB"
            self.notify(
                f"Not pasted: {size} is more than the {PASTE_MAX // 1024} KiB a paste may hold.",
                severity="warning",
                markup=False,
            )
            return
        self._type(data)

    def _type(self, data: bytes) -> None:
        if not self.interactive:
            return
        if not self.view.following:  # typing shows the job's screen, as a terminal does
            self.action_follow()
        if self.sender.push(data):
            self.run_worker(
                self.sender.drain(), name="type", group="term-type", exit_on_error=False
            )

    def _typing_failed(self, why: str) -> None:
        self.notify(why, severity="error", markup=False)
        self.interactive = False

    # -- the job's terminal size -------------------------------------------------------
    def _fit_job(self) -> None:
        """While typing, the job's terminal is the pane's size (the program redraws)."""
        if self.sender.want_size(*self.view.pane_size()):
            self.run_worker(self._resize(), name="resize", group="term-size", exit_on_error=False)

    async def _resize(self) -> None:
        def warn(why: str) -> None:
            self.notify(why, severity="warning", markup=False)

        await self.sender.apply_size(self.view.resize_model, warn)
        self._show_sub()

    def on_terminal_view_resized(self, message: TerminalView.Resized) -> None:
        if self.interactive:
            self._fit_job()

    # -- scrolling ---------------------------------------------------------------------
    # The view follows the job's screen unless scrolled up (by a key here, or the mouse);
    # `following` mirrors it for the header and the footer.
    def _scroll_to(self, y: float, pause: bool) -> None:
        view = self.view
        if pause:
            view.following = False
        view.scroll_to(y=max(0, y), animate=False, immediate=True)
        self.following = view.following

    def action_scroll(self, delta: int) -> None:
        self._scroll_to(self.view.scroll_y + delta, delta < 0)

    def action_page(self, direction: int) -> None:
        step = max(1, self.view.scrollable_content_region.height - 1)
        self._scroll_to(self.view.scroll_y + direction * step, direction < 0)

    def action_top(self) -> None:
        self._scroll_to(0, True)

    def action_follow(self) -> None:
        self.view.follow_end()
        self.following = True

    # -- find --------------------------------------------------------------------------
    def action_find(self) -> None:
        self.find_bar.open()

    def _close_find(self) -> None:
        self.find_bar.close()
        self.finder.clear()
        self.set_focus(None)
        self._update_bindings()

    def _show_match(self) -> None:
        finder = self.finder
        self.find_bar.show_count(max(0, finder.current), len(finder.matches), finder.query)
        row = finder.row(self.view.model.history_dropped)
        if row is not None:
            self.view.jump_to_line(row)
            self.following = self.view.following

    def action_match(self, delta: int) -> None:
        finder = self.finder
        if not finder.query:
            self.notify("Nothing to find yet: press / and type.", markup=False)
            return
        finder.step(delta, self.view.lines_text(), self.view.model.history_dropped)
        if not finder.matches:
            self.notify(f"No matches for {finder.query!r}.", markup=False)
        self._show_match()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "jobs-find-input":
            view = self.view
            self.finder.search(event.value, view.lines_text(), view.model.history_dropped)
            self._show_match()
            self._update_bindings()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "jobs-find-input":
            self.set_focus(None)

    # -- help, back, failures ----------------------------------------------------------
    def action_help(self) -> None:
        bindings = [*type(self).BINDINGS, *TypingView.BINDINGS]
        rows = key_rows(self.app, bindings, self.HELP)
        self.app.push_screen(HelpScreen("The terminal pane", rows))

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
        self.dismiss(None)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.group.startswith("term"):
            self.notify(
                sanitize_line(f"{event.worker.name} failed: {event.worker.error}", 300),
                severity="error",
                markup=False,
            )
            if event.worker.group == "term":
                self.problem = sanitize_line(f"could not read the terminal: {event.worker.error}")
            elif event.worker.group == "term-type":
                self.interactive = False

    # -- footer ------------------------------------------------------------------------
    def _applicable(self, action: str) -> bool:
        if action == "follow":
            return not self.following
        if action == "match":
            return bool(self.finder.query)
        if action == "interactive":
            record = self._record
            return self._cannot_type(record) is None and not self.interactive
        return True
