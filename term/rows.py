"""`ScreenRows`: a terminal job's rows as they become final, for a reader that follows
its output as text (`logs --follow`, `wait --until`).

A terminal redraws: a row on the screen may still change, a row that scrolled into the
scrollback never does. A row counts as final once it scrolled off, or once the cursor
is on a row below it on the main screen (what line-oriented output looks like: a build,
a REPL); the rows of an alternate screen (vim, less, top) are final only when the
output ends (`finish`: the screen as it is then, trailing blank rows dropped). Each row
is given once; a row of the main screen redrawn after it was given (a `top` drawn on
the main screen: its first frame's rows were given as the cursor passed them) is given
again at the end, as the last frame shows it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from .model import TermModel
from .plan import ALT_ON, TEXT_BYTES, Size, pieces, plan, size_at, time_at
from .text import TEXT_SCROLLBACK

PIECE = 8 * 1024  # bytes fed at once at most: fewer rows than the scrollback keeps


def _at_switches(data: bytes) -> list[bytes]:
    """`data` cut before each switch to an alternate screen."""
    cuts = sorted(at for needle in ALT_ON for at in _find_all(data, needle))
    if not cuts:
        return [data]
    bounds = [0, *cuts, len(data)]
    return [data[lo:hi] for lo, hi in itertools.pairwise(bounds) if hi > lo]


def _find_all(data: bytes, needle: bytes) -> list[int]:
    found, at = [], data.find(needle)
    while at >= 0:
        found.append(at)
        at = data.find(needle, at + 1)
    return found


class ScreenRows:
    """Feed a terminal job's bytes in order; get the rows that became final. With
    `sizes` (`plan.Size` records; `at`: the absolute offset of the first byte fed), the
    screen is resized where the job's terminal was; a follower may update `sizes`."""

    def __init__(
        self,
        cols: int,
        rows: int,
        scrollback: int = TEXT_SCROLLBACK,
        sizes: Sequence[Size] = (),
        at: int = 0,
    ) -> None:
        cols, rows = size_at(sizes, at, (cols, rows))
        self.model = TermModel(max(1, cols), max(1, rows), scrollback)
        self.sizes = sizes
        self.at = at  # the absolute offset of the next byte fed
        self.given = 0  # absolute row number (from the first row ever) given so far
        self._texts: dict[int, str] = {}  # the rows given that may still be on the screen

    def _pushed(self) -> int:
        return self.model.history_dropped + self.model.history_len()

    def _row(self, absolute: int) -> str | None:
        """The text of row `absolute`; None when it fell off the scrollback's bound."""
        dropped = self.model.history_dropped
        if absolute < dropped:
            return None
        return self.model.line_text(absolute - dropped)

    def _take(self, upto: int) -> list[str]:
        out = []
        texts, pushed = self._texts, self._pushed()
        for absolute in range(self.given, upto):
            text = self._row(absolute)
            if text is not None:
                out.append(text)
                if absolute >= pushed:
                    texts[absolute] = text
        self.given = max(self.given, upto)
        if texts and min(texts) < pushed:  # scrolled off: never redrawn
            for absolute in [a for a in texts if a < pushed]:
                del texts[absolute]
        return out

    def prime(self, data: bytes, whole: bool) -> list[str]:
        """Feed what was written before the reader came (`whole`: from the log's start):
        the rows it made final are returned (a tail for the reader to show, or not)."""
        return [text for text, _ in self.prime_dated(data, whole)]

    def prime_dated(
        self, data: bytes, whole: bool, times: Sequence[tuple[int, int]] = ()
    ) -> list[tuple[str, int | None]]:
        """`prime`, each row with the time its bytes were written (`times`: time-index
        records, absolute offsets as `at`; the time of the bytes that made it final)."""
        todo = plan(data, whole, TEXT_BYTES)
        if todo.prefix:
            self.model.feed(todo.prefix)
        out: list[tuple[str, int | None]] = []
        base = self.at
        for lo, hi in pieces(todo.parts, base, [at for at, _ in times], PIECE):
            self.at = base + lo
            ms = time_at(times, base + lo)
            out += [(text, ms) for text in self.feed(data[lo:hi])]
        self.at = base + len(data)
        return out

    def feed(self, data: bytes) -> list[str]:
        """The rows `data` made final (the main screen's, above its cursor, are taken at
        each switch to an alternate screen, which hides them)."""
        if self.sizes:
            return self._sized(data)
        self.at += len(data)
        return self._feed(data)

    def _sized(self, data: bytes) -> list[str]:
        """`feed`, the screen resized at each size record the bytes cross."""
        out: list[str] = []
        model, base = self.model, self.at
        cuts = [at for at, _, _ in self.sizes]
        for lo, hi in pieces(((0, len(data)),), base, cuts, len(data) or 1):
            size = size_at(self.sizes, base + lo, (model.cols, model.rows))
            if size != (model.cols, model.rows):
                model.resize(*size)
            out += self._feed(data[lo:hi])
        self.at = base + len(data)
        return out

    def _feed(self, data: bytes) -> list[str]:
        out: list[str] = []
        for piece in _at_switches(data):
            self.model.feed(piece)
            if self.model.modes.alt_screen:
                out += self._take(self._pushed())
            else:
                out += self._take(self._pushed() + self.model.cursor[1])
        return out

    def pending(self) -> list[str]:
        """The rows not final yet, up to the cursor's (not given: a later feed gives
        them once they are final), trailing blank ones dropped."""
        model, pushed = self.model, self._pushed()
        cursor = model.cursor[1]
        open_rows = [
            model.line_text(model.history_len() + y)
            for y in range(max(0, self.given - pushed), cursor + 1)
        ]
        while open_rows and not open_rows[-1].strip():
            open_rows.pop()
        return open_rows

    def finish(self) -> list[str]:
        """The output ended: the rows not given yet, to the last non-blank one (on an
        alternate screen: all of its rows, none of which was given while it showed); on
        the main screen, first the rows redrawn since they were given."""
        model, pushed = self.model, self._pushed()
        out = self._take(pushed)
        screen = [model.line_text(model.history_len() + y) for y in range(model.rows)]
        while screen and not screen[-1].strip():
            screen.pop()
        if model.modes.alt_screen:
            out += screen
        else:
            given = max(0, self.given - pushed)
            out += [
                text
                for y, text in enumerate(screen[:given])
                if text.strip() and self._texts.get(pushed + y, text) != text
            ]
            out += screen[given:]
        self.given = max(self.given, pushed + len(screen))
        return out
