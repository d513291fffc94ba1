"""`CellMap`: character index <-> terminal cell offset for one line, cheap on long lines.

The log pane draws only the visible part of a line (a 20,000-character line costs one
screen width per row, not its length) and wraps lines at cell boundaries without ever
splitting a wide character. ASCII lines, the common case, need no table at all.
"""

from __future__ import annotations

from bisect import bisect_right

from rich.cells import get_character_cell_size

STEP = 64  # characters between two checkpoints of a non-ASCII line


class CellMap:
    """Where each character of `plain` starts, in cells (tabs already expanded)."""

    __slots__ = ("_checkpoints", "_rows", "ascii", "cells", "plain")

    def __init__(self, plain: str) -> None:
        self.plain = plain
        self.ascii = plain.isascii()
        self._checkpoints: list[int] = []
        self._rows: tuple[int, list[int]] | None = None
        if self.ascii:
            self.cells = len(plain)
            return
        total = 0
        for index, char in enumerate(plain):
            if index % STEP == 0:
                self._checkpoints.append(total)
            total += get_character_cell_size(char)
        self.cells = total

    def cell_of(self, index: int) -> int:
        """The cell where character `index` starts (`cells` at the end)."""
        if index >= len(self.plain):
            return self.cells
        if self.ascii:
            return index
        block = index // STEP
        cell = self._checkpoints[block]
        for char in self.plain[block * STEP : index]:
            cell += get_character_cell_size(char)
        return cell

    def index_at(self, cell: int) -> int:
        """The character that covers `cell` (`len(plain)` past the end)."""
        if self.ascii:
            return min(max(0, cell), len(self.plain))
        if cell >= self.cells:
            return len(self.plain)
        block = max(0, bisect_right(self._checkpoints, cell) - 1)
        index, at = block * STEP, self._checkpoints[block]
        for char in self.plain[index:]:
            size = get_character_cell_size(char)
            if at + size > cell and size:
                return index
            at += size
            index += 1
        return len(self.plain)

    def span(self, start_cell: int, width: int) -> tuple[int, int, int]:
        """Characters `[a, b)` that cover cells `[start_cell, start_cell + width)`, and how
        many cells of character `a` lie left of `start_cell` (a wide one cut in two)."""
        a = self.index_at(start_cell)
        b = self.index_at(start_cell + width - 1) + 1 if width > 0 else a
        return (
            a,
            min(b, len(self.plain)),
            start_cell - self.cell_of(a) if a < len(self.plain) else 0,
        )

    def row_starts(self, width: int) -> list[int]:
        """The first character of each row when the line is wrapped at `width` cells."""
        width = max(1, width)
        if self._rows is not None and self._rows[0] == width:
            return self._rows[1]
        if self.cells <= width:
            starts = [0]
        elif self.ascii:
            starts = list(range(0, len(self.plain), width))
        else:
            starts, used = [0], 0
            for index, char in enumerate(self.plain):
                size = get_character_cell_size(char)
                if used + size > width and used:
                    starts.append(index)
                    used = 0
                used += size
        self._rows = (width, starts)
        return starts

    def rows(self, width: int) -> int:
        if self.cells <= width:
            return 1
        if self.ascii:
            return -(-self.cells // max(1, width))
        return len(self.row_starts(width))
