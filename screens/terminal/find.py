"""Find in a terminal's scrollback and screen: smart case, `i of n`, n / N.

Pure: rows of text in, matches out. Rows are numbered absolutely (rows the bounded
scrollback dropped, plus the index among the rows kept), so a match keeps naming the
same row while output scrolls the screen; every step searches again (the job may have
printed more, or redrawn the screen), keeping the current match where it was.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

Match = tuple[int, int]  # (absolute row, column)


def smart_find(lines: list[str], query: str, first_row: int = 0) -> list[Match]:
    """Every match, in order; a query with a capital letter is exact, else any case."""
    if not query:
        return []
    fold = query == query.lower()
    found = []
    for number, line in enumerate(lines, first_row):
        haystack = line.lower() if fold else line
        start = haystack.find(query)
        while start >= 0:
            found.append((number, start))
            start = haystack.find(query, start + len(query))
    return found


@dataclass
class TermFind:
    query: str = ""
    matches: list[Match] = field(default_factory=list)
    current: int = -1  # index into matches; -1: none

    def search(self, query: str, lines: list[str], dropped: int) -> None:
        """A new query: every match, the last one (nearest the screen) current."""
        self.query = query
        self.matches = smart_find(lines, query, dropped)
        self.current = len(self.matches) - 1

    def step(self, delta: int, lines: list[str], dropped: int) -> None:
        """The next (`delta` 1) or previous (-1) match, wrapping, over the rows as they are now."""
        at = self.matches[self.current] if 0 <= self.current < len(self.matches) else None
        self.matches = smart_find(lines, self.query, dropped)
        if not self.matches:
            self.current = -1
            return
        if at is None:
            self.current = len(self.matches) - 1 if delta < 0 else 0
            return
        after, before = bisect_right(self.matches, at), bisect_left(self.matches, at) - 1
        index = after if delta > 0 else before
        self.current = index % len(self.matches)

    def row(self, dropped: int) -> int | None:
        """The current match's row among the rows kept now (None: none, or dropped)."""
        if not 0 <= self.current < len(self.matches):
            return None
        row = self.matches[self.current][0] - dropped
        return row if row >= 0 else None

    def clear(self) -> None:
        self.query, self.matches, self.current = "", [], -1
