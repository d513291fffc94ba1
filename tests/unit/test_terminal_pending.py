"""TermModel's pending text runs: text drawn by the fast path is written into its row
only when something reads or moves the row, and a run covered by a later one is never
written. The cells must always be what writing every run at once gives."""

from __future__ import annotations

import inspect

import pyte
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobs_tui.term import emulator as tm
from jobs_tui.term.model import TermModel

COLS, ROWS = 20, 6

text = st.text(alphabet="abcxyz 0123-|中é✓", min_size=1, max_size=25)
sgr = st.sampled_from(["31", "1;32", "38;5;208", "7", "0"])
token = st.one_of(
    text.map(str.encode),
    st.tuples(st.integers(1, ROWS + 1), st.integers(1, COLS + 2)).map(
        lambda rc: b"\x1b[%d;%dH" % rc
    ),
    st.tuples(sgr, text).map(lambda p: f"\x1b[{p[0]}m{p[1]}".encode()),
    st.tuples(st.sampled_from("@PXLMKJ"), st.integers(0, 4)).map(
        lambda p: f"\x1b[{p[1]}{p[0]}".encode()  # insert/delete/erase chars and lines
    ),
    st.sampled_from(
        [
            b"\r\n",
            b"\r",
            b"\n",
            b"\t",
            b"\x08",
            b"\x1bM",  # reverse index
            b"\x1b[2;4r",  # scroll region
            b"\x1b[r",
            b"\x1b[4h",  # insert mode
            b"\x1b[4l",
            b"\x1b[?7l",  # no autowrap
            b"\x1b[?7h",
            b"\x1b[?1049h",
            b"\x1b[?1049l",
            b"\x1b[?5h",  # reverse screen: every cell rewritten
            b"\x1b[?5l",
            b"\x1b#8",
            b"\x1b7",
            b"\x1b8",
            b"\x1bc",
        ]
    ),
)


def cells(model: TermModel) -> tuple[object, ...]:
    rows = tuple(
        tuple(model.line(n)[x] for x in range(model.cols)) for n in range(model.total_lines())
    )
    return rows, model.cursor, model.modes


def eager() -> TermModel:
    """A model that writes every run into its row at once."""
    model = TermModel(COLS, ROWS, 50)
    screen = model._screen
    draw = screen.draw

    def draw_now(data: str) -> None:
        draw(data)
        screen.flush()

    screen.draw = draw_now  # type: ignore[method-assign]
    return model


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tokens=st.lists(token, min_size=1, max_size=80), data=st.data())
def test_pending_runs_give_the_cells_of_writing_every_run_at_once(tokens, data):
    reference, model = eager(), TermModel(COLS, ROWS, 50)
    reads = data.draw(st.sets(st.integers(0, len(tokens) - 1), max_size=10))
    for i, chunk in enumerate(tokens):
        reference.feed(chunk)
        model.feed(chunk)
        if i in reads:  # a draw in between reads the rows (and writes what is pending)
            assert cells(model) == cells(reference)
        if i % 7 == 3:
            model.resize(COLS - 2, ROWS - 1)
            reference.resize(COLS - 2, ROWS - 1)
    assert cells(model) == cells(reference)


def test_a_run_covered_by_a_later_one_is_never_written():
    model = TermModel(COLS, ROWS)
    for frame in range(50):  # a program repainting row 2 fifty times between two draws
        model.feed(b"\x1b[2;1H\x1b[31mframe %02d\x1b[0m tail" % frame)
    assert len(model._screen._pending[1]) == 2  # the last frame's two runs only
    assert model.text_lines()[1] == "frame 49 tail"
    assert model.screen_line(1)[0].fg == "red" and model.screen_line(1)[9].fg == "default"


def test_every_pyte_screen_method_writes_pending_runs_first_or_touches_no_cell():
    """A pyte upgrade that adds a method must say which kind it is."""
    names = {
        name
        for name, value in inspect.getmembers(pyte.Screen)
        if callable(value) and not name.startswith("_")
    }
    assert names == set(tm.FLUSHING) | set(tm.NOT_FLUSHING)
    assert not set(tm.FLUSHING) & set(tm.NOT_FLUSHING)
