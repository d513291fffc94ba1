"""`WrapRows`: where each log line starts among the screen rows when long lines wrap.

Pure bookkeeping for the wrapping log view: rows per line kept as running totals,
so a row is found by bisection and lines let go off the top cost nothing to forget
(the totals keep counting from `base`, the rows of the lines already dropped).
"""

from __future__ import annotations

from bisect import bisect_right


class WrapRows:
    """Running row totals of the complete lines, plus the rows of the unfinished one."""

    def __init__(self) -> None:
        self.width = 0  # the cells each row holds
        self.ends: list[int] = []  # per line: base + rows up to and including it
        self.base = 0  # rows of the lines let go
        self.partial = 0  # rows of the unfinished line

    def restart(self, ends: list[int]) -> None:
        """Start again from these totals (none: no line held)."""
        self.ends, self.base = ends, 0

    def add(self, rows: int) -> None:
        """One more complete line, `rows` rows high."""
        self.ends.append((self.ends[-1] if self.ends else self.base) + rows)

    def drop(self, lines: int) -> int:
        """Let the first `lines` lines go; returns the rows they took."""
        new_base = self.ends[lines - 1]
        rows, self.base = new_base - self.base, new_base
        del self.ends[:lines]
        return rows

    @property
    def count(self) -> int:
        return (self.ends[-1] if self.ends else self.base) - self.base + self.partial

    def locate(self, row: int, lines: int) -> tuple[int, int] | None:
        """(line, row within that line) of row `row` (>= 0); `lines` is the complete ones."""
        target = self.base + row
        index = bisect_right(self.ends, target)
        if index < len(self.ends):
            start = self.ends[index - 1] if index else self.base
            return index, target - start
        within = target - (self.ends[-1] if self.ends else self.base)
        return (lines, within) if within < self.partial else None

    def first_row(self, line: int) -> int:
        """The row where line `line` starts."""
        if line <= 0:
            return 0
        ends = self.ends
        return (ends[min(line, len(ends)) - 1] if ends else self.base) - self.base
