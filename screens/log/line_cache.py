"""`LineCache`: a log view's styled texts and cell maps, made once per line and reused.

Parsing a line's colours and mapping its cells are the costly part of drawing it;
the view draws the same lines on every scroll, so both are kept by absolute line
number (bounded, and forgotten with the lines the window lets go). The unfinished
last line has its own entries, made again whenever it grows. A drawn row's strip is
kept too, by the line, the cells shown and the marks on them: a view following a log
moves every row up by one for each new line, and redrew them all from their texts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from rich.text import Text
from textual.strip import Strip

from .cells import CellMap
from .text import make_text

TEXT_CACHE = 512  # entries of each kind at most; when full it starts again
T = TypeVar("T")


def cached(store: dict[int, T], key: int, make: Callable[[], T]) -> T:
    """`store[key]`, made first if missing; a full store is emptied instead of growing."""
    value = store.get(key)
    if value is None:
        value = make()
        if len(store) >= TEXT_CACHE:
            store.clear()
        store[key] = value
    return value


class LineCache:
    """Styled `Text` and `CellMap` per absolute line, and the unfinished line's own pair."""

    def __init__(self) -> None:
        self._texts: dict[int, Text] = {}
        self._maps: dict[int, CellMap] = {}
        self._partial_text: Text | None = None
        self._partial_map: CellMap | None = None
        self._strips: dict[tuple[object, ...], Strip] = {}

    def text(self, absolute: int, raw: str) -> Text:
        return cached(self._texts, absolute, lambda: make_text(raw))

    def cells(self, absolute: int, plain: str) -> CellMap:
        return cached(self._maps, absolute, lambda: CellMap(plain))

    def strip(self, key: tuple[object, ...], make: Callable[[], Strip]) -> Strip:
        """A finished line's drawn row; `key` starts with the line's absolute number."""
        strip = self._strips.get(key)
        if strip is None:
            strip = make()
            if len(self._strips) >= 2 * TEXT_CACHE:
                self._strips.clear()
            self._strips[key] = strip
        return strip

    def forget_strips(self) -> None:
        """The view's styles changed: every row is drawn again."""
        self._strips.clear()

    def partial_text(self, raw: str) -> Text:
        if self._partial_text is None:
            self._partial_text = make_text(raw)
        return self._partial_text

    def partial_cells(self, plain: str) -> CellMap:
        if self._partial_map is None:
            self._partial_map = CellMap(plain)
        return self._partial_map

    def new_partial(self) -> None:
        """The unfinished line changed: its entries are made again when next asked for."""
        self._partial_text = self._partial_map = None

    def forget_before(self, base: int) -> None:
        """The lines before absolute `base` were let go."""
        self._texts = {k: v for k, v in self._texts.items() if k >= base}
        self._maps = {k: v for k, v in self._maps.items() if k >= base}
        self._strips = {k: v for k, v in self._strips.items() if k[0] >= base}  # type: ignore[operator]

    def clear(self) -> None:
        self._texts.clear()
        self._maps.clear()
        self._strips.clear()
        self.new_partial()
