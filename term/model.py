"""`TermModel`: a PTY job's screen emulated from its raw output, with a scrollback.

Pure: bytes in, cells out; no Textual. `Parser` (term.parser) reads the bytes
(faster than pyte's own, and it drops what only a real terminal acts on: titles, OSC 52,
hyperlinks, DCS) into an `EmulatedScreen` (term.emulator: pyte's screen with the
alternate screen, a bounded scrollback and safe, fast drawing).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from .emulator import Cell, EmulatedScreen, Line
from .parser import Parser

__all__ = ["Cell", "Line", "TermModel", "TermModes"]

BRACKETED_PASTE = 2004 << 5
IRM = 4  # insert mode (pyte's code for the ANSI mode)
DECCKM = 1 << 5  # application cursor keys


@dataclass(frozen=True)
class TermModes:
    bracketed_paste: bool  # DEC 2004 set by the program
    app_cursor: bool  # DECCKM (arrows send ESC O A instead of ESC [ A)
    app_keypad: bool  # DECKPAM
    alt_screen: bool  # 1049/1047/47 active
    cursor_visible: bool  # DECTCEM


class TermModel:
    """A job's terminal: feed it raw bytes, read rows of cells, modes and the cursor.

    Rows are numbered over the scrollback and the screen together by `line(n)`
    (0 = the oldest row kept); `history_len()` of them are scrollback.
    """

    def __init__(self, cols: int = 80, rows: int = 24, scrollback: int = 5000) -> None:
        self._screen = EmulatedScreen(max(1, cols), max(1, rows), scrollback)
        self._parser = Parser(self._screen)
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.fed = 0  # bytes fed so far

    @property
    def cols(self) -> int:
        return self._screen.columns

    @property
    def rows(self) -> int:
        return self._screen.lines

    @property
    def scrollback(self) -> int:
        """How many scrolled-off rows are kept at most."""
        return self._screen.history.maxlen or 0

    def feed(self, data: bytes) -> None:
        """Raw job bytes; a UTF-8 character or escape cut between two feeds is joined."""
        self.fed += len(data)
        text = self._decoder.decode(data)
        if text:
            self._parser.feed(text)

    def takes_plain_lines(self) -> bool:
        """Whether lines of printable ASCII (each shorter than the screen is wide, each
        ending in CR LF) fed now are drawn each on its own row from column 0, and once
        `rows` of them are fed, each further one on a fresh row: the main screen, no scroll
        margins, no insert mode or line-drawing set, the cursor at column 0, nothing held
        by the parser. A reader of rows may then skip emulating the ones in between."""
        s, parser = self._screen, self._parser
        margins = s.margins
        return (
            not s.alt
            and (margins is None or (margins.top == 0 and margins.bottom == s.lines - 1))
            and IRM not in s.mode
            and not s.dec_graphics
            and s.cursor.x == 0
            and not parser._hold
            and not parser._in_string
        )

    def resize(self, cols: int, rows: int) -> None:
        self._screen.resize(max(1, rows), max(1, cols))

    @property
    def modes(self) -> TermModes:
        s = self._screen
        return TermModes(
            bracketed_paste=BRACKETED_PASTE in s.mode,
            app_cursor=DECCKM in s.mode,
            app_keypad=s.app_keypad,
            alt_screen=s.alt,
            cursor_visible=not s.cursor.hidden,
        )

    @property
    def cursor(self) -> tuple[int, int]:
        c = self._screen.cursor
        return min(c.x, self.cols - 1), c.y

    def history_len(self) -> int:
        return len(self._screen.history)

    @property
    def history_dropped(self) -> int:
        """Scrollback rows dropped off the bound so far (absolute numbering for a search)."""
        return self._screen.pushed - len(self._screen.history)

    def total_lines(self) -> int:
        return self.history_len() + self.rows

    def line(self, n: int) -> Line:
        """Row `n` counted from the oldest scrollback row (the screen follows the history)."""
        screen = self._screen
        history = screen.history
        if n < len(history):
            return history[n]
        if screen._pending:
            screen.flush()
        return screen.buffer[n - len(history)]

    def screen_line(self, y: int) -> Line:
        return self.line(self.history_len() + y)

    def line_text(self, n: int) -> str:
        """Row `n`'s text, trailing blanks dropped: from the cells it holds (a row is
        sparse, and asking each column costs as much as emulating the row)."""
        line, cols = self.line(n), self.cols
        if not line:
            return ""
        text = [" "] * cols
        for x, cell in line.items():
            if x < cols:
                text[x] = cell.data
        return "".join(text).rstrip()

    def text_lines(self) -> list[str]:
        """The screen's rows as plain text, rstripped."""
        h = self.history_len()
        return [self.line_text(h + y) for y in range(self.rows)]

    def lines_text(self) -> list[str]:
        """Every row kept, scrollback first, as plain text (for a search)."""
        return [self.line_text(n) for n in range(self.total_lines())]

    def take_dirty(self) -> set[int]:
        """Screen rows changed since the last call."""
        dirty = {y for y in self._screen.dirty if 0 <= y < self.rows}
        self._screen.dirty.clear()
        return dirty
