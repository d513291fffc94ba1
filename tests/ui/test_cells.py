"""CellMap: character <-> cell offsets and wrapping that never splits a wide character."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from jobs_tui.screens.log.cells import CellMap

chars = st.sampled_from(["a", " ", "é", "日", "😀", "\u0301", "-", "Ω"])
lines = st.lists(chars, max_size=300).map("".join)


@settings(max_examples=300, deadline=None)
@given(lines, st.integers(min_value=1, max_value=40))
def test_rows_join_to_the_line_and_each_fills_its_width(plain: str, width: int):
    cells = CellMap(plain)
    assert cells.cells == cell_len(plain)
    starts = cells.row_starts(width)
    pieces = [plain[a:b] for a, b in zip(starts, [*starts[1:], len(plain)], strict=True)]
    assert "".join(pieces) == plain
    assert cells.rows(width) == len(starts)
    for piece, following in itertools.pairwise(pieces):
        assert cell_len(piece) <= max(width, 2)  # only a wide character overfills a row
        assert cell_len(piece + following[0]) > width  # nothing more would have fit


@settings(max_examples=300, deadline=None)
@given(lines, st.integers(min_value=0, max_value=700), st.integers(min_value=1, max_value=40))
def test_a_span_covers_exactly_the_cells_asked_for(plain: str, start: int, width: int):
    cells = CellMap(plain)
    for index in range(len(plain) + 1):
        assert cells.cell_of(index) == cell_len(plain[:index])
    a, b, lead = cells.span(start, width)
    if start >= cells.cells:
        assert a == len(plain)
        return
    assert cells.cell_of(a) <= start < cells.cell_of(a) + max(1, cell_len(plain[a])) or (
        cell_len(plain[a]) == 0
    )
    assert lead == start - cells.cell_of(a)
    assert cells.cell_of(b) >= min(start + width, cells.cells)
