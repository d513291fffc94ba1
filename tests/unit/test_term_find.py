"""`TermFind`: the terminal pane's find over scrollback + screen, as output keeps coming."""

from __future__ import annotations

from jobs_tui.screens.terminal.find import TermFind, smart_find


def test_smart_case_and_every_match_on_a_row():
    lines = ["Error: disk", "no error here", "error error", "ERROR"]
    assert smart_find(lines, "error") == [(0, 0), (1, 3), (2, 0), (2, 6), (3, 0)]
    assert smart_find(lines, "Error") == [(0, 0)]
    assert smart_find(lines, "") == []
    assert smart_find(lines, "disk", first_row=100) == [(100, 7)]


def test_the_last_match_is_current_and_n_N_wrap():
    find = TermFind()
    lines = ["a x", "b", "x", "x x"]
    find.search("x", lines, 0)
    assert find.matches == [(0, 2), (2, 0), (3, 0), (3, 2)] and find.row(0) == 3
    find.step(1, lines, 0)
    assert find.current == 0 and find.row(0) == 0
    find.step(-1, lines, 0)
    assert find.current == 3 and find.matches[find.current] == (3, 2)
    find.step(-1, lines, 0)
    assert find.matches[find.current] == (3, 0)


def test_a_step_keeps_its_place_while_the_scrollback_drops_rows():
    find = TermFind()
    find.search("x", ["x1", "x2", "x3", "y"], 0)  # rows 0..3, current: x3
    find.step(-1, ["x1", "x2", "x3", "y"], 0)
    assert find.matches[find.current] == (1, 0)  # x2
    # two rows dropped off the top, two new ones (one a match) at the bottom
    now = ["x3", "y", "z", "x4"]
    find.step(1, now, 2)
    assert find.matches[find.current] == (2, 0) and find.row(2) == 0  # x3, now row 0
    find.step(1, now, 2)
    assert find.row(2) == 3  # x4
    find.step(1, ["y", "z", "x4"], 3)
    assert find.row(3) == 2  # wraps to the only match left


def test_no_query_or_no_match():
    find = TermFind()
    find.search("zz", ["a", "b"], 0)
    assert find.matches == [] and find.row(0) is None
    find.step(1, ["a", "zz"], 0)
    assert find.row(0) == 1  # printed since: found on the next step
    find.clear()
    assert find.query == "" and find.row(0) is None
