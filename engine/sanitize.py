"""The untrusted-text boundary: job output never reaches a screen or a model unsanitized.

Two uses, as registry-format.md describes: `sanitize_line` for one display line
(labels, `lastLine`, rows) and `sanitize_log` for log text (indentation and empty
lines kept, SGR colours optionally kept for a pane that renders them).
"""

from __future__ import annotations

import re

LINE_LIMIT = 200

# OSC, DCS/SOS/PM/APC strings (terminated by BEL or ST; an unterminated one ends at the
# next ESC, newline or the end, so it never swallows later lines or sequences), CSI
# sequences, other escape sequences, and a lone ESC; then the 8-bit C1 forms.
_ESCAPES = re.compile(
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
_SGR_OR_ESCAPE = re.compile(_SGR.pattern + "|" + _ESCAPES.pattern)
_CONTROLS_LOG = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROLS_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROLS_LOG_SGR = re.compile(r"\x1b(?!\[[0-9;:]*m)|[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]")
# Bidirectional overrides can make displayed text lie about what it says.
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_SPACES = re.compile(r"\s+")
# A lone surrogate (a byte that was not UTF-8, decoded with surrogateescape, or worse)
# cannot be encoded for a terminal: it is shown as U+FFFD.
_SURROGATES = re.compile("[\ud800-\udfff]")


_ESCAPE_INTRO = re.compile(r"[\x1b\x90-\x9f]")  # ESC, or an 8-bit C1 sequence introducer


def strip_escapes(text: str, keep_sgr: bool = False) -> str:
    if not _ESCAPE_INTRO.search(text):  # the common case, at C speed
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
    text = _BIDI.sub("", text)
    text = _SURROGATES.sub("\ufffd", text)
    text = _CONTROLS_LINE.sub(" ", text)
    text = _SPACES.sub(" ", text).strip()
    return clip(text, limit)


def sanitize_log(text: str, keep_sgr: bool = False) -> str:
    """Log text: escapes and controls gone, CR rewrites collapsed, layout kept."""
    text = strip_escapes(text, keep_sgr=keep_sgr)
    if "\r" in text:
        text = "\n".join(_after_last_cr(part) for part in text.replace("\r\n", "\n").split("\n"))
    text = _BIDI.sub("", text)
    text = _SURROGATES.sub("\ufffd", text)
    return (_CONTROLS_LOG_SGR if keep_sgr else _CONTROLS_LOG).sub(" ", text)


def last_line(raw: bytes | str, limit: int = LINE_LIMIT) -> str:
    """The most recent non-empty output line in a bounded raw tail, sanitized."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    for part in reversed(text.replace("\r\n", "\n").split("\n")):
        line = sanitize_line(part, limit)
        if line:
            return line
    return ""
