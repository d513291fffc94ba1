"""The grammars the published schemas hold typed input to: C-style escapes and key tokens.

Pure data (the key names and the regular expressions over them), in the core so the
published schemas (`toolschemas`) need no vocabulary; `tools/keys.py` turns what these
admit into bytes, and the property tests hold the two to each other.
"""

from __future__ import annotations

import re

from .callschema import SPACES

ESC = "\x1b"

# An escape that `parse_escapes` refuses, found where an escape starts (after an even run
# of backslashes): the schema's `chars` rule is "no match", and the property tests hold
# the parser to it.
BAD_ESCAPE = (
    r"(?:^|[^\\])(?:\\\\)*\\(?:$|[^\\'"
    '"'
    r"?abefnrtv0-7xuU]"  # '"' unescaped: ECMA
    r"|x(?:[^0-9A-Fa-f]|$)"
    r"|u(?:[0-9A-Fa-f]{0,3}(?:[^0-9A-Fa-f]|$)|[Dd][89A-Fa-f])"
    r"|U(?:[0-9A-Fa-f]{0,7}(?:[^0-9A-Fa-f]|$)|0000[Dd][89A-Fa-f]"
    r"|00(?:1[1-9A-Fa-f]|[2-9A-Fa-f][0-9A-Fa-f])|0[1-9A-Fa-f]|[1-9A-Fa-f])"
    r"|[4-7][0-7]{2})"
)


# -- key tokens --------------------------------------------------------------------
CSI_LETTER = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
CSI_TILDE = {"insert": 2, "delete": 3, "pageup": 5, "pagedown": 6}
F_SS3 = {1: "P", 2: "Q", 3: "R", 4: "S"}
F_TILDE = {5: 15, 6: 17, 7: 18, 8: 19, 9: 20, 10: 21, 11: 23, 12: 24}
PLAIN = {"enter": "\r", "tab": "\t", "escape": ESC, "space": " ", "backspace": "\x7f"}
ALIASES = {
    "return": "enter",
    "esc": "escape",
    "bspace": "backspace",
    "pgup": "pageup",
    "ppage": "pageup",
    "pgdn": "pagedown",
    "npage": "pagedown",
    "ic": "insert",
    "ins": "insert",
    "dc": "delete",
    "del": "delete",
    "btab": "s-tab",
    "arrowup": "up",
    "arrowdown": "down",
    "arrowleft": "left",
    "arrowright": "right",
}
MODIFIERS = "CMScms"
F_KEY = re.compile(r"f(1[0-2]|[1-9])\Z")
CTRL_CHARS = "?@[\\]^_ "  # besides ASCII letters: the characters C-x can be typed with


def _key_names() -> list[str]:
    names = [*CSI_LETTER, *CSI_TILDE, *PLAIN, *ALIASES]
    return sorted(set(names), key=lambda n: (-len(n), n))


def _any_case(word: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in word)


_NAME = "(?:" + "|".join(_any_case(n) for n in _key_names()) + "|[Ff](?:1[0-2]|[1-9]))"
_MOD = f"[{MODIFIERS}]-"
_CTRL = "[A-Za-z" + re.sub(r"([\[\]\\^])", r"\\\1", CTRL_CHARS) + "]"
# A key token: literal text (anything not starting with a modifier like "C-x"), or
# modifiers then a key name or one character, with C- only where a control character
# exists. A modified token never holds a line break (KEY_LINE_BREAK).
KEY = (
    rf"^(?:[^{MODIFIERS}][\s\S]*|[{MODIFIERS}](?:[^-][\s\S]*)?|{_MOD}"
    rf"|(?:[MSms]-)+(?:{_NAME}|[^\n])"
    rf"|(?:{_MOD})*[Cc]-(?:{_MOD})*(?:{_NAME}|{_CTRL}))$"
)
KEY_LINE_BREAK = rf"^{_MOD}[\s\S]*\n"
# A raw byte for `hex`: one or two hex digits, optionally 0x, spaces around allowed.
HEX_BYTE = rf"^[{SPACES}]*(?:0[xX])?([0-9a-fA-F]{{1,2}})[{SPACES}]*$"
