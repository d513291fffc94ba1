"""Turning what an agent types into terminal bytes: C-style escapes, key tokens, pastes.

Pure functions; each raises `InputError` naming the field it could not read, so a
call fails before anything reaches the job.
"""

from __future__ import annotations

import re

from jobs_tui.engine.calls.keygrammar import (
    ALIASES,
    BAD_ESCAPE,
    CSI_LETTER,
    CSI_TILDE,
    ESC,
    F_KEY,
    F_SS3,
    F_TILDE,
    HEX_BYTE,
    KEY,
    KEY_LINE_BREAK,
    MODIFIERS,
    PLAIN,
)
from jobs_tui.engine.calls.schemacheck import explain, quote

from .validation import ToolInputError

PASTE_START = ESC + "[200~"
PASTE_END = ESC + "[201~"
__all__ = ["BAD_ESCAPE", "ESC", "HEX_BYTE", "KEY", "KEY_LINE_BREAK"]  # the grammar, re-exported

_SIMPLE_ESCAPES = {
    "\\": b"\\",
    "'": b"'",
    '"': b'"',
    "?": b"?",
    "a": b"\x07",
    "b": b"\x08",
    "e": b"\x1b",
    "f": b"\x0c",
    "n": b"\n",
    "r": b"\r",
    "t": b"\t",
    "v": b"\x0b",
}
_OCT = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")


class InputError(ToolInputError):
    """Input that cannot be turned into bytes; `field` names the offending call field."""


def _encode(text: str, field: str = "keys") -> bytes:
    """UTF-8, and U+DC80-U+DCFF back to the bytes they stand for (surrogateescape)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        bad = ord(text[exc.start])
        raise InputError(f"{field} contains the lone surrogate U+{bad:04X}", field) from None


def parse_escapes(text: str, field: str = "chars") -> bytes:
    r"""C-style escapes to bytes: `\n \r \t \e \\ \xHH \NNN \uHHHH \UHHHHHHHH`, others literal.

    `\x` and octal escapes are raw bytes; `\u`/`\U` and plain characters are UTF-8
    (U+DC80-U+DCFF: the byte they stand for). An unknown escape is an error rather than a
    guess, so `\q` never reaches a job.
    """
    if "\\" not in text:
        return _encode(text, field)
    out = bytearray()
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch != "\\":
            j = text.find("\\", i)
            j = n if j < 0 else j
            out += _encode(text[i:j], field)
            i = j
            continue
        if i + 1 >= n:
            raise InputError(f"{field} ends with a lone backslash; write \\\\ for one", field)
        kind = text[i + 1]
        i += 2
        if kind in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[kind]
        elif kind in _OCT:
            j = i
            while j < n and j < i + 2 and text[j] in _OCT:
                j += 1
            value = int(kind + text[i:j], 8)
            if value > 0xFF:
                raise InputError(f"{field}: octal escape \\{kind}{text[i:j]} is above \\377", field)
            out.append(value)
            i = j
        elif kind in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[kind]
            digits = text[i : i + width]
            if kind == "x":
                digits = digits[: 2 if len(digits) > 1 and digits[1] in _HEX else 1]
            if (
                not digits
                or any(c not in _HEX for c in digits)
                or (kind != "x" and len(digits) != width)
            ):
                raise InputError(f"{field}: \\{kind} needs {width} hex digits", field)
            value = int(digits, 16)
            if kind == "x":
                out.append(value)
            elif value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
                raise InputError(f"{field}: \\{kind}{digits} is not a Unicode scalar value", field)
            else:
                out += chr(value).encode("utf-8")
            i += len(digits)
        else:
            raise InputError(
                f"{field}: unknown escape \\{kind}; write \\\\{kind} for a backslash "
                "or use chars_b64 for raw bytes",
                field,
            )
    return bytes(out)


# -- key tokens: the names and the grammar are the core's (`engine/calls/keygrammar.py`) ----


def _modifier_code(ctrl: bool, alt: bool, shift: bool) -> int:
    """xterm's modifier parameter: 1 + shift + 2*alt + 4*ctrl."""
    return 1 + shift + 2 * alt + 4 * ctrl


def _ctrl_char(ch: str) -> str | None:
    """The control character C-`ch` types (ASCII only: 'ı'.upper() is no 'I' here)."""
    if ch == "?":
        return "\x7f"
    if ch == " ":
        return "\x00"
    if len(ch) != 1 or not ch.isascii():
        return None
    code = ord(ch.upper())
    return chr(code & 0x1F) if 0x40 <= code <= 0x5F else None


def _named(base: str, ctrl: bool, alt: bool, shift: bool, application: bool) -> str | None:
    mod = _modifier_code(ctrl, alt, shift)
    if base in CSI_LETTER:
        letter = CSI_LETTER[base]
        if mod > 1:
            return f"{ESC}[1;{mod}{letter}"
        return f"{ESC}O{letter}" if application else f"{ESC}[{letter}"
    if base in CSI_TILDE:
        number = CSI_TILDE[base]
        return f"{ESC}[{number};{mod}~" if mod > 1 else f"{ESC}[{number}~"
    f_key = F_KEY.match(base)
    if f_key:
        n = int(f_key.group(1))
        if n in F_SS3:
            return f"{ESC}[1;{mod}{F_SS3[n]}" if mod > 1 else f"{ESC}O{F_SS3[n]}"
        return f"{ESC}[{F_TILDE[n]};{mod}~" if mod > 1 else f"{ESC}[{F_TILDE[n]}~"
    if base == "tab" and shift:
        return f"{ESC}[Z" if not alt else f"{ESC}{ESC}[Z"
    if base in PLAIN:
        seq = PLAIN[base]
        if ctrl and base == "space":
            seq = "\x00"
        return ESC + seq if alt else seq
    return None


def encode_key(token: str, *, application: bool = False) -> str:
    """One token: `Enter`, `C-c`, `M-x`, `S-Tab`, `C-S-Up`, `F5`, `^C`, or literal text.

    Accepts exactly what the schema's KEY rule does (the property tests hold it to that).
    """
    if not token:
        raise InputError("keys: an empty key token", "keys")
    if len(token) == 2 and token[0] == "^":
        ctrl = _ctrl_char(token[1])
        if ctrl is not None:
            return ctrl
    ctrl = alt = shift = modified = False
    rest = token
    while len(rest) > 2 and rest[0] in MODIFIERS and rest[1] == "-":
        letter = rest[0].lower()
        ctrl, alt, shift = ctrl or letter == "c", alt or letter == "m", shift or letter == "s"
        rest, modified = rest[2:], True
    base = ALIASES.get(rest.lower(), rest.lower())
    if base == "s-tab":
        base, shift = "tab", True
    seq = _named(base, ctrl, alt, shift, application)
    if seq is not None:
        return seq
    if len(rest) == 1 and not (modified and rest == "\n"):
        upper = rest.upper()
        ch = upper if shift and rest.isalpha() and len(upper) == 1 else rest
        if ctrl:
            control = _ctrl_char(ch)
            if control is None:
                raise InputError(f"keys: {quote(token)} has no control character", "keys")
            ch = control
        return ESC + ch if alt else ch
    if modified:
        raise InputError(f"keys: {quote(rest)} in {quote(token)} is not a key name", "keys")
    return rest  # literal text


@explain(KEY)
def _explain_key(name: str, value: str) -> str:
    try:
        encode_key(value)
    except InputError as exc:
        return f"{name}: {str(exc).removeprefix('keys: ')}"
    return f"{name}: {quote(value)} is not a key such as Enter, C-c or F5"


@explain(HEX_BYTE)
def _explain_hex(name: str, value: str) -> str:
    return f"{name}: {quote(value)} is not a byte such as '1b' or '0x03'"


@explain(BAD_ESCAPE)
def _explain_escape(name: str, value: str) -> str:
    try:
        parse_escapes(value, name)
    except InputError as exc:
        return str(exc)
    return f"{name} has an escape that is not \\n \\r \\t \\e \\xHH \\uHHHH or \\\\"


def parse_hex(values: list[str]) -> bytes:
    out = bytearray()
    for raw in values:
        match = re.search(HEX_BYTE, raw)
        if not match:
            raise InputError(f"hex: {quote(raw)} is not a byte such as '1b' or '0x03'", "hex")
        out.append(int(match.group(1), 16))
    return bytes(out)


def encode_keys(
    keys: list[str] | None = None,
    hex_bytes: list[str] | None = None,
    literal: str | None = None,
    *,
    application: bool = False,
) -> bytes:
    """`literal`, then `hex`, then `keys`, as the process tool's send-keys orders them."""
    out = bytearray()
    if literal:
        out += _encode(literal, "literal")
    if hex_bytes:
        out += parse_hex(hex_bytes)
    for token in keys or []:
        out += _encode(encode_key(token, application=application))
    return bytes(out)


def bracketed_paste(text: str, bracketed: bool = True) -> bytes:
    """Text wrapped in ESC[200~ … ESC[201~; markers inside the text are removed first."""
    if not bracketed:
        return _encode(text, "text")
    inner = text.replace(PASTE_START, "").replace(PASTE_END, "")
    return _encode(PASTE_START + inner + PASTE_END, "text")


def application_cursor_mode(raw_tail: bytes) -> bool:
    """Whether the program last switched the terminal to application cursor keys (DECCKM)."""
    on = raw_tail.rfind(b"\x1b[?1h")
    off = raw_tail.rfind(b"\x1b[?1l")
    return on > off
