"""`EmulatedScreen`: pyte's screen, made safe and fast for a job's hostile output.

Around pyte's screen (the VT parser in front of it is `parser.Parser`):

- the alternate screen (1049/1047/47), which pyte lacks: the main screen's rows are
  set aside and given back, with the cursor for 1049;
- a bounded scrollback: rows that scroll off the top of the main screen (never of the
  alternate one) are kept, `scrollback` rows at most;
- a fast `draw` for runs of printable ASCII (pyte's spends ~10 us a cell), and no
  control or format character ever stored in a cell (each becomes U+FFFD);
- such runs are written into their row only when the row is read or moved (`flush`,
  before every pyte method in FLUSHING and `TermModel.line`), and a run a later one
  covers is never written: a program repainting its screen 60 times a second between
  two draws of the view costs one frame's cell writes, not six.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import defaultdict, deque
from collections.abc import Mapping
from typing import Any

import pyte
from pyte import modes as mo
from pyte.screens import Char, Margins, StaticDefaultDict
from wcwidth import wcwidth

Cell = Char  # (data, fg, bg, bold, italics, underscore, strikethrough, reverse, blink)
Line = Mapping[int, Cell]

ALT_MODES = (1049 << 5, 1047 << 5, 47 << 5)
DECCOLM = 3 << 5  # 132-column switch: a view keeps its pane's width
REPLACEMENT = "\ufffd"
PENDING_LIMIT = 32  # runs held for one row at most before they are written
_ATTR_CACHE_LIMIT = 512

# DEC special graphics (ESC ( 0): the line-drawing set curses uses without UTF-8.
DEC_GRAPHICS = str.maketrans(
    dict(zip("`abcdefghijklmnopqrstuvwxyz{|}~", "◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·", strict=True))
)


def safe_char(ch: str) -> str:
    """The character as a cell may hold it: controls, format characters (bidi overrides,
    zero-width joiners on their own), separators and surrogates become U+FFFD."""
    if ch.isprintable() or unicodedata.category(ch) == "Zs":
        return ch
    return REPLACEMENT


class _CellCache(dict[str, Cell]):
    """One attribute set's cells by character: cells are immutable, so they are shared."""

    def __init__(self, attrs: Cell) -> None:
        super().__init__()
        self.attrs = attrs

    def __missing__(self, ch: str) -> Cell:
        cell = self[ch] = self.attrs._replace(data=ch)
        return cell


def _new_buffer(default: Cell) -> defaultdict[int, StaticDefaultDict[int, Cell]]:
    return defaultdict(lambda: StaticDefaultDict(default))


class EmulatedScreen(pyte.Screen):
    """pyte's screen with the alternate screen, a scrollback and a safe, fast `draw`."""

    def __init__(self, cols: int, rows: int, scrollback: int) -> None:
        self.history: deque[Line] = deque(maxlen=max(0, scrollback))
        self.pushed = 0  # rows ever pushed into the history
        self.alt = False
        self.app_keypad = False
        self.dec_graphics = False
        self._main: Any = None  # the main screen's rows while the alternate one shows
        self._caches: dict[Cell, _CellCache] = {}
        # Runs of text drawn by the fast path, not yet written into their rows: by row,
        # (x, end, cells, text) in order; a later run covering an earlier one drops it.
        self._pending: dict[int, list[tuple[int, int, _CellCache, str]]] = {}
        super().__init__(cols, rows)

    # -- what a view must never act on ---------------------------------------------
    def set_title(self, param: str) -> None:  # never stored: hostile text
        pass

    def set_icon_name(self, param: str) -> None:
        pass

    def bell(self, *args: Any) -> None:
        pass

    def write_process_input(self, data: str) -> None:  # answers to DA/DSR: not sent
        pass

    def debug(self, *args: Any, **kwargs: Any) -> None:
        pass

    # -- drawing ---------------------------------------------------------------------
    def _cells(self, attrs: Cell) -> _CellCache:
        cache = self._caches.get(attrs)
        if cache is None:
            if len(self._caches) >= _ATTR_CACHE_LIMIT:
                self._caches.clear()
            cache = self._caches[attrs] = _CellCache(attrs)
        return cache

    def draw(self, data: str) -> None:
        if self.dec_graphics:
            data = data.translate(DEC_GRAPHICS)
        if not (data.isascii() and data.isprintable()) or mo.IRM in self.mode:
            self._draw_slow(data)
            return
        cursor = self.cursor
        x, n = cursor.x, len(data)
        if x + n <= self.columns:  # the common case: the run fits in the row
            cells = self._caches.get(cursor.attrs) or self._cells(cursor.attrs)
            y, end = cursor.y, x + n
            pending = self._pending.get(y)
            if pending is None:
                self._pending[y] = [(x, end, cells, data)]
            else:  # a run this one covers is never written
                if len(pending) >= PENDING_LIMIT:
                    self._write(y, pending)
                pending[:] = [p for p in pending if p[0] < x or p[1] > end]
                pending.append((x, end, cells, data))
            cursor.x = end
            self.dirty.add(y)
            return
        self._draw_ascii(data)

    def flush(self) -> None:
        """Write the pending runs into their rows: before anything reads or moves a
        row's cells (the methods in FLUSHING, `TermModel.line`)."""
        pending, self._pending = self._pending, {}
        for y, runs in pending.items():
            self._write(y, runs)

    def _write(self, y: int, runs: list[tuple[int, int, _CellCache, str]]) -> None:
        line = self.buffer[y]
        for x, end, cells, data in runs:
            if end - x == 1:
                line[x] = cells[data]
            else:
                line.update(zip(range(x, end), map(cells.__getitem__, data), strict=False))
        runs.clear()

    def _draw_ascii(self, data: str) -> None:
        self.flush()
        cursor, cols, dirty = self.cursor, self.columns, self.dirty
        cells = self._cells(cursor.attrs)
        wrap = mo.DECAWM in self.mode
        i, n = 0, len(data)
        while i < n:
            if cursor.x >= cols:
                if not wrap:  # each further character overwrites the last column
                    self.buffer[cursor.y][cols - 1] = cells[data[n - 1]]
                    cursor.x = cols
                    break
                dirty.add(cursor.y)
                self.carriage_return()
                self.linefeed()
            take = min(n - i, cols - cursor.x)
            x = cursor.x
            self.buffer[cursor.y].update(
                zip(range(x, x + take), map(cells.__getitem__, data[i : i + take]), strict=True)
            )
            cursor.x = x + take
            i += take
            dirty.add(cursor.y)

    def _draw_slow(self, data: str) -> None:
        self.flush()
        cursor, cols = self.cursor, self.columns
        for raw in data:
            char = safe_char(raw)
            width = wcwidth(char)
            if width < 0:
                char, width = REPLACEMENT, 1
            if width == 0:
                if unicodedata.combining(char) and cursor.x:
                    line = self.buffer[cursor.y]
                    last = line[min(cursor.x, cols) - 1]
                    joined = unicodedata.normalize("NFC", last.data + char)
                    line[min(cursor.x, cols) - 1] = last._replace(data=joined)
                continue  # a lone zero-width character takes no cell
            if cursor.x + width > cols:
                if mo.DECAWM in self.mode:
                    self.dirty.add(cursor.y)
                    if width == 2 and cursor.x < cols:  # a wide one does not fit: pad
                        self.buffer[cursor.y][cursor.x] = cursor.attrs._replace(data=" ")
                    self.carriage_return()
                    self.linefeed()
                else:
                    cursor.x = cols - width
            if mo.IRM in self.mode:
                self.insert_characters(width)
            line = self.buffer[cursor.y]
            line[cursor.x] = cursor.attrs._replace(data=char)
            if width == 2 and cursor.x + 1 < cols:
                line[cursor.x + 1] = cursor.attrs._replace(data="")
            cursor.x = min(cursor.x + width, cols)
            self.dirty.add(cursor.y)

    def cursor_position(self, line: int | None = None, column: int | None = None) -> None:
        """pyte's, without its bound checks' calls when the origin mode is off (a
        full-screen program moves the cursor once a row, every frame)."""
        if mo.DECOM in self.mode and self.margins is not None:
            super().cursor_position(line, column)
            return
        cursor = self.cursor
        cursor.x = min(max(0, (column or 1) - 1), self.columns - 1)
        cursor.y = min(max(0, (line or 1) - 1), self.lines - 1)

    # -- scrollback ------------------------------------------------------------------
    def index(self) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        if self.cursor.y == bottom and top == 0 and not self.alt and self.history.maxlen:
            self.history.append(self.buffer[top])
            self.pushed += 1
        super().index()

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        """`ED 3` clears the scrollback (as `clear` asks), not the screen."""
        if how == 3:
            self.history.clear()
            return
        super().erase_in_display(how, *args, **kwargs)

    # -- modes, the alternate screen --------------------------------------------------
    def set_mode(self, *modes: int, **kwargs: Any) -> None:
        if not kwargs.get("private"):
            super().set_mode(*modes, **kwargs)
            return
        shifted = [m << 5 for m in modes]
        for code in shifted:
            if code in ALT_MODES:
                self._enter_alt(code)
        rest = [m for m, code in zip(modes, shifted, strict=True) if code not in (DECCOLM,)]
        if rest:
            super().set_mode(*rest, **kwargs)

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
        if not kwargs.get("private"):
            super().reset_mode(*modes, **kwargs)
            return
        shifted = [m << 5 for m in modes]
        rest = [m for m, code in zip(modes, shifted, strict=True) if code not in (DECCOLM,)]
        if rest:
            super().reset_mode(*rest, **kwargs)
        for code in shifted:
            if code in ALT_MODES:
                self._leave_alt(code)

    def _enter_alt(self, code: int) -> None:
        if self.alt:
            return
        if code == ALT_MODES[0]:
            self.save_cursor()
        self._main = self.buffer
        self.buffer = _new_buffer(self.default_char)
        self.alt = True
        self.dirty.update(range(self.lines))

    def _leave_alt(self, code: int) -> None:
        if not self.alt:
            return
        self.buffer, self._main = self._main, None
        self.alt = False
        if code == ALT_MODES[0]:
            self.restore_cursor()
        self.dirty.update(range(self.lines))

    def reset(self) -> None:
        if getattr(self, "alt", False):
            self.buffer, self._main, self.alt = self._main, None, False
        self.app_keypad = False
        self.dec_graphics = False
        super().reset()

    # -- size ------------------------------------------------------------------------
    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        """Fewer rows: the rows above the cursor that no longer fit go to the scrollback
        (as xterm does); those below it are dropped. More rows: blank rows at the bottom."""
        lines = lines or self.lines
        cut = self.cursor.y - (lines - 1)
        if lines < self.lines and cut > 0:
            for y in range(cut):
                if not self.alt and self.history.maxlen:
                    self.history.append(self.buffer[y])
                    self.pushed += 1
            for y in range(self.lines):
                if y + cut < self.lines:
                    self.buffer[y] = self.buffer[y + cut]
                else:
                    self.buffer.pop(y, None)
            self.cursor.y -= cut
        for y in range(lines, max(lines, self.lines)):
            self.buffer.pop(y, None)
        old_lines, self.lines = self.lines, lines
        self.margins = None
        if columns is not None and columns != self.columns:
            for line in self.buffer.values():
                for x in range(columns, self.columns):
                    line.pop(x, None)
            self.columns = columns
            self.tabstops = set(range(8, columns, 8))
        self.cursor.x = min(self.cursor.x, self.columns)
        self.cursor.y = min(self.cursor.y, self.lines - 1)
        self.dirty.update(range(max(old_lines, lines)))


# pyte's methods that read, write or move cells: each writes the pending runs first.
FLUSHING = (
    "alignment_display",
    "delete_characters",
    "delete_lines",
    "erase_characters",
    "erase_in_display",
    "erase_in_line",
    "index",
    "insert_characters",
    "insert_lines",
    "linefeed",
    "reset",
    "reset_mode",
    "resize",
    "reverse_index",
    "set_mode",
)
# The others only move the cursor, set attributes or tab stops, or do nothing here.
NOT_FLUSHING = (
    "backspace",
    "bell",
    "carriage_return",
    "clear_tab_stop",
    "cursor_back",
    "cursor_down",
    "cursor_down1",
    "cursor_forward",
    "cursor_position",
    "cursor_to_column",
    "cursor_to_line",
    "cursor_up",
    "cursor_up1",
    "debug",
    "define_charset",
    "draw",
    "ensure_hbounds",
    "ensure_vbounds",
    "report_device_attributes",
    "report_device_status",
    "restore_cursor",
    "save_cursor",
    "select_graphic_rendition",
    "set_icon_name",
    "set_margins",
    "set_tab_stop",
    "set_title",
    "shift_in",
    "shift_out",
    "tab",
    "write_process_input",
)


def _flushing(method: Any) -> Any:
    @functools.wraps(method)
    def flushed(self: EmulatedScreen, *args: Any, **kwargs: Any) -> Any:
        if self._pending:
            self.flush()
        return method(self, *args, **kwargs)

    return flushed


for _name in FLUSHING:
    setattr(EmulatedScreen, _name, _flushing(getattr(EmulatedScreen, _name)))
