"""Typing into a PTY job: the view that claims every key, and the ordered sender behind it.

`TypingView` is the terminal view with one more state: while `interactive`, its
`check_consume_key` claims every key, so Textual removes those keys from every binding
above it (the screen's, the app's, priority ones such as ctrl+q too) and they reach
`on_key`, which hands them to the screen as `Typed`. Its own priority binding, the
leave key (`term.leave`), is the one binding still checked; a keymap may rebind it.

`KeySender` keeps the bytes in order: a key is queued, and one call at a time drains
the queue (keys typed during a call go out together in the next). The pane's size is
applied the same way: only the latest size is sent, once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.keys import format_key
from textual.message import Message

from jobs_tui.engine import JobError
from jobs_tui.engine.records.sanitize import sanitize_line

from .view import TerminalView

LEAVE_KEY = "ctrl+right_square_bracket"
SEND_CHUNK = 64 * 1024  # bytes one engine call carries at most (a long paste: several)
PASTE_MAX = 512 * 1024  # a larger paste is refused: the job's supervisor holds 1 MiB of input


def key_words(key: str) -> str:
    """`ctrl+right_square_bracket` -> `ctrl+]`: modifiers as words, the key as printed."""
    *mods, base = key.split("+")
    return "+".join([*mods, format_key(base)])


class TypingView(TerminalView):
    """The terminal view; in interactive mode every key but the leave key is the job's."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(LEAVE_KEY, "screen.leave", "Stop typing", priority=True, id="term.leave"),
    ]

    class Typed(Message):
        """A key for the job: its Textual name and character, as the key event had them."""

        def __init__(self, key: str, character: str | None) -> None:
            super().__init__()
            self.key = key
            self.character = character

    class Pasted(Message):
        """Text pasted while typing (the terminal's bracketed paste, parsed by Textual)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return bool(self.interactive)

    def on_key(self, event: events.Key) -> None:
        if self.interactive:
            event.stop()
            event.prevent_default()
            self.post_message(self.Typed(event.key, event.character))

    def on_paste(self, event: events.Paste) -> None:
        if self.interactive:
            event.stop()
            event.prevent_default()
            self.post_message(self.Pasted(event.text))


Report = Callable[[str], None]


class KeySender:
    """One job's typed bytes and terminal size, sent in order, one engine call at a time.

    `push` / `want_size` say whether the caller must start `drain` / `apply_size` (in a
    worker): False while one already runs, which picks the new bytes or size up.
    """

    def __init__(self, source: Any, job_id: str, failed: Report) -> None:
        self.source = source
        self.job_id = job_id
        self.failed = failed  # told (sanitized) when a call is refused; typing should stop
        self.outbox = bytearray()
        self.sending = False
        # the job's terminal's size as its record says (the screen sets it), then as set here
        self.size: tuple[int, int] | None = None
        self.wanted: tuple[int, int] | None = None
        self.sizing = False

    def push(self, data: bytes) -> bool:
        self.outbox += data
        if self.sending:
            return False
        self.sending = True
        return True

    async def drain(self) -> None:
        try:
            while self.outbox:
                data = bytes(self.outbox[:SEND_CHUNK])
                del self.outbox[:SEND_CHUNK]
                try:
                    await self.source.send_bytes(self.job_id, data)
                except JobError as exc:
                    self.outbox.clear()
                    self.failed(sanitize_line(str(exc), 300))
                    return
        finally:
            self.sending = False

    def want_size(self, cols: int, rows: int) -> bool:
        if (cols, rows) == (self.wanted or self.size):
            return False
        self.wanted = (cols, rows)
        if self.sizing:
            return False
        self.sizing = True
        return True

    async def apply_size(self, before: Callable[[int, int], None], failed: Report) -> None:
        """Resize the job's terminal to the latest wanted size; `before` first resizes
        the emulated screen, so the program's redraw lands on a screen of its size."""
        resize = getattr(self.source, "resize", None)
        try:
            while resize is not None and self.wanted is not None and self.wanted != self.size:
                cols, rows = size = self.wanted
                before(cols, rows)
                try:
                    await resize(self.job_id, cols, rows)
                except JobError as exc:
                    failed(sanitize_line(str(exc), 300))
                    return
                self.size = size
        finally:
            self.sizing = False
            self.wanted = None
