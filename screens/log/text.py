"""A log line's text as the log pane needs it: plain (colours stripped), styled, sliced, timed.

Pure helpers shared by the view's drawing, its search and the screen's filter, so
all three read the same plain text and the same smart-case rule.
"""

from __future__ import annotations

import re
import time

from rich.cells import cell_len
from rich.text import Span, Text

SGR = re.compile(r"\x1b\[[0-9;:]*m")
TIME_COLUMNS = 9  # `12:03:04 ` beside each line with `T`
NO_TIME = "--:--:-- "


def time_text(ms: int | None) -> str:
    """The wall-clock time a line was written, local, to the second (`--:--:--` unknown)."""
    if ms is None:
        return NO_TIME
    return time.strftime("%H:%M:%S ", time.localtime(ms / 1000))


def plain_of(line: str) -> str:
    return (SGR.sub("", line) if "\x1b" in line else line).expandtabs()


def smart_case(text: str) -> bool:
    """Smart case: an all-lowercase text ignores case (True: compare lowercased)."""
    return text == text.lower()


def contains(plain: str, text: str) -> bool:
    """`text` is in `plain`, by the smart-case rule."""
    return text in (plain.lower() if smart_case(text) else plain)


def make_text(raw: str) -> Text:
    text = Text.from_ansi(raw) if "\x1b" in raw else Text(raw)
    text.expand_tabs()
    text.no_wrap = True
    text.end = ""
    return text


def slice_text(text: Text, start: int, end: int) -> Text:
    """Characters `[start, end)` of `text` with their styles; cheap on a long line."""
    if start == 0 and end >= len(text.plain):
        return text.copy()
    spans = [
        Span(max(s, start) - start, min(e, end) - start, style)
        for s, e, style in text.spans
        if e > start and s < end
    ]
    return Text(text.plain[start:end], style=text.style, spans=spans, end="", no_wrap=True)


def find_all(haystack: str, needle: str) -> list[tuple[int, int]]:
    spans, start = [], haystack.find(needle)
    while start >= 0:
        spans.append((start, start + len(needle)))
        start = haystack.find(needle, start + max(1, len(needle)))
    return spans


def width_of(plain: str) -> int:
    return len(plain) if plain.isascii() else cell_len(plain)
