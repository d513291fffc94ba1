"""The untrusted-text boundary: job output never reaches a screen or a model unsanitized.

Two uses, as registry-format.md describes: `sanitize_line` for one display line
(labels, `lastLine`, rows) and `sanitize_log` for log text (indentation and empty
lines kept, SGR colours optionally kept for a pane that renders them).
"""

from __future__ import annotations

import re

LINE_LIMIT = 200


class _Lazy:
    """A pattern compiled on first use: a short call showing ASCII text needs few of them."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str):  # sub, fullmatch, ...: the compiled pattern's
        if self._compiled is None:
            self._compiled = re.compile(self.pattern)
        return getattr(self._compiled, name)


# OSC, DCS/SOS/PM/APC strings (terminated by BEL or ST; an unterminated one ends at the
# next ESC, newline or the end, so it never swallows later lines or sequences), CSI
# sequences, other escape sequences, and a lone ESC; then the 8-bit C1 forms.
_ESCAPES = _Lazy(
    r"\x1b(?:"
    r"\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"
    r"|[PX^_][^\x1b\n]*(?:\x1b\\)?"
    r"|\[[0-?]*[ -/]*[@-~]"
    r"|[ -/]*[0-~]"
    r")?"
    r"|\x9d[^\x07\x1b\x9c\n]*(?:\x07|\x9c|\x1b\\)?"
    r"|[\x90\x98\x9e\x9f][^\x1b\x9c\n]*(?:\x9c|\x1b\\)?"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_SGR_OR_ESCAPE = _Lazy(_SGR.pattern + "|" + _ESCAPES.pattern)
_CONTROLS_LOG = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROLS_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROLS_LOG_SGR = _Lazy(r"\x1b(?!\[[0-9;:]*m)|[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]")
# Bidirectional overrides can make displayed text lie about what it says.
_BIDI = _Lazy(r"[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_SPACES = re.compile(r"\s+")
# A lone surrogate (a byte that was not UTF-8, decoded with surrogateescape, or worse)
# cannot be encoded for a terminal: it is shown as U+FFFD.
_SURROGATES = _Lazy("[\ud800-\udfff]")


_ESCAPE_INTRO = re.compile(r"[\x1b\x90-\x9f]")  # ESC, or an 8-bit C1 sequence introducer
# The ASCII members of the control classes above, for the usual all-ASCII text: a regex
# scans about 20 ns a character, `bytes.translate` a tenth of that. ESC is in both sets,
# so text with a colour goes to the regex (`_CONTROLS_LOG_SGR` keeps SGR's ESC).
_LOG_CONTROL_BYTES = bytes([*range(0x09), *range(0x0B, 0x20), 0x7F])
_LINE_CONTROL_BYTES = bytes([*range(0x20), 0x7F])


def _has_escape(text: str) -> bool:
    if text.isascii():  # no C1 introducer then: one memchr for ESC
        return "\x1b" in text
    return _ESCAPE_INTRO.search(text) is not None


def _controls_to_spaces(pattern: re.Pattern[str] | _Lazy, ascii_set: bytes, text: str) -> str:
    """`pattern.sub(" ", text)`, skipped for ASCII text that holds none of `ascii_set`."""
    if text.isascii():
        raw = text.encode("ascii")
        if len(raw.translate(None, ascii_set)) == len(raw):
            return text
    return pattern.sub(" ", text)


def strip_escapes(text: str, keep_sgr: bool = False) -> str:
    if not _has_escape(text):  # the common case, at C speed
        return text
    if not keep_sgr:
        return _ESCAPES.sub("", text)
    return _SGR_OR_ESCAPE.sub(lambda m: m.group(0) if _SGR.fullmatch(m.group(0)) else "", text)


def _after_last_cr(line: str) -> str:
    line = line.rstrip("\r")
    cut = line.rfind("\r")
    return line if cut < 0 else line[cut + 1 :]


def clip(text: str, limit: int) -> str:
    if limit <= 0 or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def sanitize_line(text: str, limit: int = LINE_LIMIT) -> str:
    """One display line: no escapes, no controls, the final state of a CR rewrite, one line."""
    text = strip_escapes(text)
    text = text.replace("\r\n", "\n")
    lines = [_after_last_cr(part) for part in text.split("\n")]
    text = " ".join(lines)
    if not text.isascii():
        text = _BIDI.sub("", text)
        text = _SURROGATES.sub("\ufffd", text)
    text = _controls_to_spaces(_CONTROLS_LINE, _LINE_CONTROL_BYTES, text)
    text = _SPACES.sub(" ", text).strip()
    return clip(text, limit)


def sanitize_log(text: str, keep_sgr: bool = False) -> str:
    """Log text: escapes and controls gone, CR rewrites collapsed, layout kept."""
    text = strip_escapes(text, keep_sgr=keep_sgr)
    if "\r" in text:
        text = "\n".join(_after_last_cr(part) for part in text.replace("\r\n", "\n").split("\n"))
    if not text.isascii():
        text = _BIDI.sub("", text)
        text = _SURROGATES.sub("\ufffd", text)
    pattern = _CONTROLS_LOG_SGR if keep_sgr else _CONTROLS_LOG
    return _controls_to_spaces(pattern, _LOG_CONTROL_BYTES, text)


def last_line(raw: bytes | str, limit: int = LINE_LIMIT) -> str:
    """The most recent non-empty output line in a bounded raw tail, sanitized."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    for part in reversed(text.replace("\r\n", "\n").split("\n")):
        line = sanitize_line(part, limit)
        if line:
            return line
    return ""


_SPELLED = re.compile(r"[\\\x00-\x08\x0b-\x1f\x7f-\x9f]")


def spell_controls(text: str) -> str:
    """Control characters (but newline and tab) as `\\xNN`, a backslash as two: a job's
    raw bytes shown where a real ESC would act (a tool result, a terminal), still readable."""
    return _SPELLED.sub(lambda m: "\\\\" if m[0] == "\\" else f"\\x{ord(m[0]):02x}", text)
