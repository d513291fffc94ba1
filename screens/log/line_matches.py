"""`LineMatches`: the matches of a find in a log view's lines, kept by absolute line number.

Pure: the view hands it the plain text of the lines it holds (new ones as they
arrive, the first ones it lets go) and draws the highlights and the current match
from what it keeps, so a bounded, growing window never searches a line twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from .text import find_all, smart_case


class LineMatches:
    """Every match of `query` as (absolute line, start, end), and the current one's index."""

    def __init__(self) -> None:
        self.query = ""
        self.matches: list[tuple[int, int, int]] = []  # (absolute line, start, end)
        self.by_line: dict[int, list[tuple[int, int]]] = {}
        self.current = -1

    def scan(self, plains: Sequence[str], first_abs: int) -> None:
        """Add the matches in `plains`, whose first line has absolute number `first_abs`."""
        needle, fold = self.query, smart_case(self.query)
        for offset, plain in enumerate(plains):
            line_no = first_abs + offset
            spans = find_all(plain.lower() if fold else plain, needle)
            if spans:
                self.by_line[line_no] = spans
                self.matches.extend((line_no, s, e) for s, e in spans)

    def drop_before(self, first_abs: int) -> None:
        """Forget the matches of the lines the window let go; the current one stays put."""
        if not self.matches or self.matches[0][0] >= first_abs:
            return
        kept = [m for m in self.matches if m[0] >= first_abs]
        self.current = max(-1, self.current - (len(self.matches) - len(kept)))
        if self.current < 0 and kept:
            self.current = 0
        self.matches = kept
        self.by_line = {k: v for k, v in self.by_line.items() if k >= first_abs}

    def scan_front(self, plains: Sequence[str], first_abs: int) -> None:
        """Add the matches of earlier lines put before the ones held (the current one stays)."""
        held = self.matches
        self.matches = []
        self.scan(plains, first_abs)
        added = len(self.matches)
        self.matches += held
        if self.current >= 0:
            self.current += added

    def drop_from(self, first_abs: int) -> None:
        """Forget the matches of the lines from `first_abs` on (the window let its end go)."""
        kept = [m for m in self.matches if m[0] < first_abs]
        if len(kept) == len(self.matches):
            return
        self.matches = kept
        self.by_line = {k: v for k, v in self.by_line.items() if k < first_abs}
        self.current = min(self.current, len(kept) - 1)

    def select_line(self, absolute: int) -> bool:
        """The first match on line `absolute` becomes the current one; False if it has none."""
        for index, match in enumerate(self.matches):
            if match[0] == absolute:
                self.current = index
                return True
        return False

    def search(self, query: str, plains: Sequence[str], base: int, near_line: int | None) -> None:
        """Find every match; the current one is the last at or above `near_line` (absolute)."""
        self.query = query
        self.matches, self.by_line, self.current = [], {}, -1
        if query:
            self.scan(plains, base)
        if self.matches:
            target = base + len(plains) if near_line is None else near_line
            above = [i for i, m in enumerate(self.matches) if m[0] <= target]
            self.current = above[-1] if above else 0

    def step(self, delta: int) -> bool:
        """Move the current match by `delta`, round the ends; False when there is none."""
        if not self.matches:
            return False
        self.current = (self.current + delta) % len(self.matches)
        return True

    def marks(self, absolute: int, first: int, last: int) -> list[tuple[int, int, bool]]:
        """The matches of line `absolute` within its characters `[first, last)`, as (start,
        end, current) counted from `first`: what the view highlights in that piece."""
        spans = self.by_line.get(absolute)
        if not spans:
            return []
        current = self.current_match()
        return [
            (max(start, first) - first, min(end, last) - first, current == (absolute, start, end))
            for start, end in spans
            if end > first and start < last
        ]

    def current_match(self) -> tuple[int, int, int] | None:
        if 0 <= self.current < len(self.matches):
            return self.matches[self.current]
        return None
