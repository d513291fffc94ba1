"""Textual key events as the bytes a terminal (xterm) would send for them, and pastes.

Pure: a key name and its character in, bytes out, so every key is testable without a
terminal. Textual names keys `ctrl+shift+left`, `alt+x`, `f5`, `full_stop` (legacy
xterm input) or, under the kitty keyboard protocol, with its modifiers sorted
(`alt+ctrl+a`); both spellings are read the same way: modifiers, then the base key.

What is sent follows xterm's defaults, which every terminal program expects:
Enter is CR, Backspace is DEL (0x7f), Alt (or Meta) prefixes ESC, Ctrl+letter is its
C0 control, arrows and Home/End are CSI (SS3 once the program set DECCKM) and take
xterm's modifier parameter (`ESC [ 1 ; 5 A` for ctrl+up), F1-F4 are SS3 P-S.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from jobs_tui.term.model import TermModes

ESC = b"\x1b"
CSI = b"\x1b["
SS3 = b"\x1bO"
PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"

# xterm's modifier parameter is 1 + the sum of these (shift+ctrl = 6)
MODIFIER_BITS = {"shift": 1, "alt": 2, "meta": 2, "ctrl": 4}
# modifiers no terminal encodes: a key held with them sends nothing
UNSENDABLE = {"super", "hyper"}

CURSOR_KEYS = {"up": b"A", "down": b"B", "right": b"C", "left": b"D", "home": b"H", "end": b"F"}
TILDE_KEYS = {"insert": 2, "delete": 3, "pageup": 5, "pagedown": 6}
SS3_FUNCTION_KEYS = {"f1": b"P", "f2": b"Q", "f3": b"R", "f4": b"S"}
TILDE_FUNCTION_KEYS = {
    "f5": 15,
    "f6": 17,
    "f7": 18,
    "f8": 19,
    "f9": 20,
    "f10": 21,
    "f11": 23,
    "f12": 24,
    "f13": 25,
    "f14": 26,
    "f15": 28,
    "f16": 29,
    "f17": 31,
    "f18": 32,
    "f19": 33,
    "f20": 34,
}
# Ctrl with a punctuation or digit key: the C0 controls xterm sends for them
CTRL_SYMBOLS = {
    "space": 0x00,
    "@": 0x00,
    "commercial_at": 0x00,
    "2": 0x00,
    "left_square_bracket": 0x1B,
    "3": 0x1B,
    "backslash": 0x1C,
    "reverse_solidus": 0x1C,
    "4": 0x1C,
    "right_square_bracket": 0x1D,
    "5": 0x1D,
    "circumflex_accent": 0x1E,
    "6": 0x1E,
    "underscore": 0x1F,
    "low_line": 0x1F,
    "minus": 0x1F,
    "hyphen_minus": 0x1F,
    "solidus": 0x1F,
    "slash": 0x1F,
    "7": 0x1F,
    "8": 0x7F,
    "question_mark": 0x7F,
}
# names Textual gives some keys whole (not as modifier + base)
WHOLE_NAMES = {"ctrl-at": "ctrl+space", "ctrl+@": "ctrl+space", "newline": "ctrl+j"}


class KeyModes(Protocol):
    """What the encoder reads of the terminal's modes (`TermModes` has it)."""

    @property
    def app_cursor(self) -> bool: ...
    @property
    def bracketed_paste(self) -> bool: ...


def split_key(key: str) -> tuple[frozenset[str], str]:
    """`ctrl+shift+left` -> ({ctrl, shift}, left); `plus_sign` and `+` stay whole."""
    key = WHOLE_NAMES.get(key, key)
    if key == "+" or "+" not in key.rstrip("+"):
        return frozenset(), key
    *mods, base = key.split("+")
    return frozenset(m for m in mods if m), base


def _modifier_param(mods: frozenset[str]) -> int:
    """xterm's `1 + shift + 2·alt + 4·ctrl` (Meta counts as Alt, as with metaSendsEscape)."""
    return (
        1
        + sum({MODIFIER_BITS[m] for m in mods if m in ("shift", "ctrl")})
        + (2 if mods & {"alt", "meta"} else 0)
    )


def typable(text: str | None) -> bool:
    """Text a key may send as itself: no control character (C0, DEL, C1) and no lone
    surrogate. Not `str.isprintable`, which refuses U+00A0, U+3000 and other spaces a
    keyboard types."""
    return bool(text) and all(unicodedata.category(c) not in ("Cc", "Cs") for c in text)


def _character_of(base: str, character: str | None) -> str | None:
    """The text of a key: its character, else what its name spells."""
    if typable(character):
        return character
    if len(base) == 1:
        return base if typable(base) else None
    from textual.keys import key_to_character  # a table lookup; no app, no IO

    found = key_to_character(base)
    return found if typable(found) else None


def encode_key(key: str, character: str | None, modes: TermModes | KeyModes) -> bytes | None:
    """The bytes a terminal sends for `key`, or None for a key it sends nothing for."""
    mods, base = split_key(key)
    if mods & UNSENDABLE or not base:
        return None
    alt = bool(mods & {"alt", "meta"})
    ctrl = "ctrl" in mods
    shift = "shift" in mods
    prefix = ESC if alt else b""

    if base in CURSOR_KEYS:
        final = CURSOR_KEYS[base]
        if mods & set(MODIFIER_BITS):
            return CSI + b"1;%d" % _modifier_param(mods) + final
        return (SS3 if modes.app_cursor else CSI) + final
    if base in TILDE_KEYS or base in TILDE_FUNCTION_KEYS:
        number = TILDE_KEYS.get(base) or TILDE_FUNCTION_KEYS[base]
        if mods & set(MODIFIER_BITS):
            return CSI + b"%d;%d~" % (number, _modifier_param(mods))
        return CSI + b"%d~" % number
    if base in SS3_FUNCTION_KEYS:
        final = SS3_FUNCTION_KEYS[base]
        if mods & set(MODIFIER_BITS):
            return CSI + b"1;%d" % _modifier_param(mods) + final
        return SS3 + final

    if base in ("enter", "return"):
        return prefix + b"\r"
    if base == "tab":
        return CSI + b"Z" if shift else prefix + b"\t"
    if base == "backspace":
        return prefix + (b"\x08" if ctrl else b"\x7f")
    if base == "escape":
        return prefix + ESC
    if ctrl:
        if len(base) == 1 and base.isascii() and base.isalpha():
            return prefix + bytes([ord(base.lower()) & 0x1F])
        if base in CTRL_SYMBOLS:
            return prefix + bytes([CTRL_SYMBOLS[base]])
    if base == "space":
        return prefix + b" "
    text = _character_of(base, character)
    if text is None:
        return None
    if shift and len(base) == 1 and base.isalpha() and text == base:
        text = text.upper()  # `alt+shift+a` carries `A`; a bare name is made upper here
    return prefix + text.encode("utf-8", "replace")


def strip_paste_end(text: str) -> str:
    """The text with every `ESC [201~` removed, including ones the removal itself forms."""
    end = PASTE_END.decode()
    while end in text:
        text = text.replace(end, "")
    return text


def encode_paste(text: str, modes: TermModes | KeyModes) -> bytes:
    """A paste as a terminal sends it: newlines as CR (Enter), and wrapped in
    `ESC [200~ … ESC [201~` when the program turned bracketed paste on. A pasted
    `ESC [201~` would end the bracket early and let the rest run as typed keys: removed."""
    text = text.replace("\r\n", "\r").replace("\n", "\r")
    if not modes.bracketed_paste:
        return text.encode("utf-8", "replace")
    return PASTE_START + strip_paste_end(text).encode("utf-8", "replace") + PASTE_END
