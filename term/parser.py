"""`Parser`: the VT parser in front of pyte's screen (pyte's own is not used).

pyte's parser reads one character at a time through a generator (~4 us each: a
full-screen program repainting colour-rich rows costs a core), draws what it does not
understand as text (a DCS body, `CSI 38:2::r:g:b m`), turns `CSI > 4 ; 1 m`
(modifyOtherKeys, sent by vim) into bold underline, raises on `CSI 38;5;999 m`, grows
an unterminated OSC string without bound and resizes itself on DECCOLM. This parser
finds controls with one regex, dispatches whole sequences to the screen's methods
(pyte's own names), and holds its state across feeds (a sequence cut between two reads
waits, at most HOLD_LIMIT characters, until it is whole):

- OSC, DCS, SOS, PM and APC strings (titles, OSC 52 clipboard, hyperlinks, sixel,
  tmux passthrough) are dropped whole, however long, never buffered;
- a CSI with a private marker other than `?` or with intermediates is dropped; SGR
  colon sub-parameters are read in their `;` form; other colon forms are dropped;
- DECKPAM/DECKPNM and the G0 character set (DEC line drawing) are set on the screen
  (`app_keypad`, `dec_graphics`), which pyte ignores in UTF-8 mode;
- a sequence the screen cannot take (an out-of-range colour) is ignored, never raised.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

ESC = "\x1b"
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
# The common tokens, matched at once: a run of text, or a plain CSI (no private marker,
# no intermediates, no colon). Everything else takes the careful path below.
_FAST = re.compile("([^\x00-\x1f\x7f-\x9f]+)|\x1b\\[([0-9;]*)([@-~])")
_STRING_END = re.compile("[\x07\x18\x1a\x1b\x9c]")
_CSI = re.compile(r"([\x30-\x3f]*)([\x20-\x2f]*)([\x40-\x7e])")
_CSI_PREFIX = re.compile(r"[\x20-\x3f]*\Z")
_STRING_STARTERS = "]PX^_"
_C1_STRINGS = "\x90\x98\x9d\x9e\x9f"
HOLD_LIMIT = 256  # characters of an unfinished sequence held back at most
SGR_CACHE = 4096

BASIC = {
    "\x07": "bell",
    "\x08": "backspace",
    "\x09": "tab",
    "\x0a": "linefeed",
    "\x0b": "linefeed",
    "\x0c": "linefeed",
    "\x0d": "carriage_return",
}
IGNORED = "\x00\x0e\x0f\x7f\x18\x1a"  # NUL, SO/SI (UTF-8 mode), DEL, CAN/SUB outside a sequence
ESCAPES = {
    "c": "reset",
    "D": "index",
    "E": "linefeed",
    "M": "reverse_index",
    "H": "set_tab_stop",
    "7": "save_cursor",
    "8": "restore_cursor",
}
CSI = {
    "@": "insert_characters",
    "A": "cursor_up",
    "B": "cursor_down",
    "C": "cursor_forward",
    "D": "cursor_back",
    "E": "cursor_down1",
    "F": "cursor_up1",
    "G": "cursor_to_column",
    "H": "cursor_position",
    "J": "erase_in_display",
    "K": "erase_in_line",
    "L": "insert_lines",
    "M": "delete_lines",
    "P": "delete_characters",
    "X": "erase_characters",
    "a": "cursor_forward",
    "d": "cursor_to_line",
    "e": "cursor_down",
    "f": "cursor_position",
    "g": "clear_tab_stop",
    "h": "set_mode",
    "l": "reset_mode",
    "m": "select_graphic_rendition",
    "r": "set_margins",
    "`": "cursor_to_column",
}


def _sgr_group(group: str) -> str | None:
    """One `:`-separated SGR parameter in its `;` form (None: drop it)."""
    parts = group.split(":")
    head = parts[0]
    if head in ("38", "48") and len(parts) >= 3:
        if parts[1] == "5":
            return f"{head};5;{parts[2] or 0}"
        if parts[1] == "2" and len(parts) >= 5:
            r, g, b = (p or "0" for p in parts[-3:])
            return f"{head};2;{r};{g};{b}"
        return None
    if head == "4":  # curly/dotted underline styles: an underline; 4:0 is none
        return "24" if parts[1:2] == ["0"] else "4"
    return None  # 58 (underline colour) and the rest: pyte has no place for them


def colon_sgr(params: str) -> str:
    groups = []
    for group in params.split(";"):
        if ":" in group:
            fixed = _sgr_group(group)
            if fixed is not None:
                groups.append(fixed)
        else:
            groups.append(group)
    return ";".join(groups)


_NUMBERS: dict[str, tuple[int, ...]] = {}


def _numbers(params: str) -> tuple[int, ...]:
    """`"12;;3"` as (12, 0, 3), each at most 9999 (as pyte reads them); cached."""
    got = _NUMBERS.get(params)
    if got is None:
        got = tuple(min(int(p), 9999) if p.isdigit() else 0 for p in params.split(";"))
        if len(_NUMBERS) >= SGR_CACHE:
            _NUMBERS.clear()
        _NUMBERS[params] = got
    return got


class Parser:
    """Streaming: `feed(text)` acts on the screen; an unfinished tail waits for more."""

    def __init__(self, screen: Any) -> None:
        self.screen = screen
        self._hold = ""
        self._in_string = False  # inside an OSC/DCS/SOS/PM/APC body: dropped
        self._sgr: dict[tuple[Any, str], Any] = {}
        self._csi = {final: getattr(screen, name) for final, name in CSI.items()}
        self._basic = {ch: getattr(screen, name) for ch, name in BASIC.items()}

    def feed(self, text: str) -> None:
        if self._hold:
            text, self._hold = self._hold + text, ""
        screen = self.screen
        draw = screen.draw
        search = _CONTROL.search
        fast = _FAST.match
        csi = self._csi
        i, n = 0, len(text)
        while i < n:
            if self._in_string:
                i = self._string(text, i)
                continue
            m = fast(text, i)
            if m is not None:
                i = m.end()
                plain = m.group(1)
                if plain is not None:
                    draw(plain)
                    continue
                params, final = m.group(2, 3)
                if final == "m":
                    self._select_rendition(params)
                    continue
                handler = csi.get(final)
                if handler is not None:
                    # hostile parameters: ignored, never raised (try, not suppress():
                    # this runs for every CSI of every frame)
                    try:
                        handler(*_numbers(params))
                    except Exception:
                        pass
                continue
            m = search(text, i)
            if m is None:
                draw(text[i:])
                return
            j = m.start()
            if j > i:
                draw(text[i:j])
            ch = text[j]
            i = j + 1
            if ch == ESC:
                i = self._escape(text, j)
            elif ch in self._basic:
                self._basic[ch]()
            elif ch in IGNORED or ch == "\x9c":
                pass
            elif ch in _C1_STRINGS:
                self._in_string = True
            elif ch == "\x9b":
                i = self._control_sequence(text, j, j + 1)
            else:
                draw(ch)  # any other control: the screen shows it replaced

    def _string(self, text: str, i: int) -> int:
        m = _STRING_END.search(text, i)
        if m is None:
            return len(text)  # all of it is string body
        j = m.start()
        self._in_string = False
        if text[j] != ESC:
            return j + 1
        if j + 1 == len(text):  # ESC \ may be cut in two
            self._in_string = True
            self._hold = ESC
            return j + 1
        return j + 2 if text[j + 1] == "\\" else j  # another ESC ends it too

    def _escape(self, text: str, j: int) -> int:
        n = len(text)
        if j + 1 == n:
            self._hold = text[j:]
            return n
        nxt = text[j + 1]
        screen = self.screen
        if nxt == "[":
            return self._control_sequence(text, j, j + 2)
        if nxt in _STRING_STARTERS:
            self._in_string = True
            return j + 2
        if nxt in "()*+#%":
            if j + 2 == n:
                self._hold = text[j:]
                return n
            if nxt == "(":
                screen.dec_graphics = text[j + 2] == "0"
            elif nxt == "#" and text[j + 2] == "8":
                screen.alignment_display()
            return j + 3
        if nxt == "=":
            screen.app_keypad = True
        elif nxt == ">":
            screen.app_keypad = False
        elif nxt in ESCAPES:
            getattr(screen, ESCAPES[nxt])()
        return j + 2

    def _control_sequence(self, text: str, start: int, body: int) -> int:
        """The CSI at `start` (parameters from `body`): act on it; where to go on."""
        m = _CSI.match(text, body)
        if m is None:
            rest = text[body:]
            if _CSI_PREFIX.match(rest) and len(text) - start < HOLD_LIMIT:
                self._hold = text[start:]
                return len(text)
            return body  # malformed (a control inside, or too long): dropped
        params, inter, final = m.groups()
        end = m.end()
        if inter or (params and params[0] in "<=>"):
            return end  # modifyOtherKeys, DECSCUSR, DECRQM, XTVERSION...: not for a view
        private = params.startswith("?")
        if private:
            params = params[1:]
        if ":" in params:
            if final != "m":
                return end
            params = colon_sgr(params)
        if final == "m":
            if not private:
                self._select_rendition(params)
            return end
        handler = self._csi.get(final)
        if handler is not None:
            with contextlib.suppress(Exception):  # hostile parameters: ignored, never raised
                if private:
                    handler(*_numbers(params), private=True)
                else:
                    handler(*_numbers(params))
        return end

    def _select_rendition(self, params: str) -> None:
        cursor = self.screen.cursor
        key = (cursor.attrs, params)
        attrs = self._sgr.get(key)
        if attrs is None:
            with contextlib.suppress(Exception):
                self.screen.select_graphic_rendition(*_numbers(params))
            if len(self._sgr) >= SGR_CACHE:
                self._sgr.clear()
            self._sgr[key] = cursor.attrs
        else:
            cursor.attrs = attrs
