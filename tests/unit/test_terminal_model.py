"""TermModel: the emulated screen of a PTY job (pure: bytes in, cells out)."""

from __future__ import annotations

import tracemalloc

import pytest

from jobs_tui.term.model import TermModel


def cell(model: TermModel, x: int, y: int):  # type: ignore[no-untyped-def]
    return model.screen_line(y)[x]


def all_cells(model: TermModel) -> str:
    return "".join(
        model.line(n)[x].data for n in range(model.total_lines()) for x in range(model.cols)
    )


def test_text_cursor_and_carriage_return_progress_bar():
    m = TermModel(30, 4)
    for pct in (0, 40, 100):
        m.feed(f"\rbuilding [{'#' * (pct // 10):<10}] {pct:3d}%".encode())
    m.feed(b"\r\ndone")
    assert m.text_lines() == ["building [##########] 100%", "done", "", ""]
    assert m.cursor == (4, 1)


def test_colours_16_256_truecolour_and_attributes():
    m = TermModel(20, 2)
    m.feed(b"\x1b[31mR\x1b[92mG\x1b[38;5;208mO\x1b[48;2;1;2;3mT\x1b[0m")
    m.feed(b"\x1b[1;3;4;7mA\x1b[0m\x1b[38:2::255:0:0mC\x1b[0mN")
    assert cell(m, 0, 0).fg == "red"
    assert cell(m, 1, 0).fg == "brightgreen"
    assert cell(m, 2, 0).fg == "ff8700"
    assert cell(m, 3, 0).bg == "010203"
    a = cell(m, 4, 0)
    assert (a.bold, a.italics, a.underscore, a.reverse) == (True, True, True, True)
    assert cell(m, 5, 0).fg == "ff0000"  # the colon form of truecolour
    assert cell(m, 6, 0).fg == "default" and not cell(m, 6, 0).bold


def test_cursor_movement_and_clearing():
    m = TermModel(10, 4)
    m.feed(b"aaaaaaaaaa\r\nbbbbbbbbbb\r\ncccccccccc")
    m.feed(b"\x1b[2;3HX\x1b[1;5H\x1b[K\x1b[3;1H\x1b[2K\x1b[4;4HZ")
    assert m.text_lines() == ["aaaa", "bbXbbbbbbb", "", "   Z"]
    m.feed(b"\x1b[H\x1b[2J")
    assert m.text_lines() == ["", "", "", ""] and m.cursor == (0, 0)


def test_alternate_screen_keeps_and_restores_the_main_screen_and_cursor():
    m = TermModel(20, 4)
    m.feed(b"shell $ vim\r\nline two")
    before = (m.text_lines(), m.cursor)
    m.feed(b"\x1b[?1049h\x1b[H\x1b[2J~\r\n~\r\n\x1b[1;1Hhello")
    assert m.modes.alt_screen
    assert m.text_lines() == ["hello", "~", "", ""]
    for _ in range(10):  # scrolling on the alternate screen feeds no scrollback
        m.feed(b"\r\n")
    assert m.history_len() == 0
    m.feed(b"\x1b[?1049l")
    assert not m.modes.alt_screen
    assert (m.text_lines(), m.cursor) == before


@pytest.mark.parametrize("mode", [b"47", b"1047"])
def test_older_alternate_screens_restore_the_main_rows(mode):
    m = TermModel(10, 3)
    m.feed(b"main")
    m.feed(b"\x1b[?" + mode + b"h\x1b[Halt")
    assert m.text_lines()[0] == "alt"
    m.feed(b"\x1b[?" + mode + b"l")
    assert m.text_lines()[0] == "main"


def test_scrollback_keeps_scrolled_rows_up_to_its_bound():
    m = TermModel(10, 3, scrollback=5)
    for i in range(20):
        m.feed(b"row %d\r\n" % i)
    assert m.history_len() == 5
    assert m.history_dropped == 13
    assert m.lines_text() == [f"row {i}" for i in range(13, 20)] + [""]


def test_erase_scrollback_clears_only_the_scrollback():
    m = TermModel(10, 2)
    m.feed(b"a\r\nb\r\nc\r\nd")
    assert m.history_len() == 2
    m.feed(b"\x1b[3J")
    assert m.history_len() == 0 and m.text_lines() == ["c", "d"]


def test_wide_characters_take_two_cells_and_wrap_whole():
    m = TermModel(5, 2)
    m.feed("ab中文".encode())
    assert m.text_lines() == ["ab中", "文"]
    assert cell(m, 2, 0).data == "中" and cell(m, 3, 0).data == ""
    assert m.cursor == (2, 1)


def test_utf8_split_across_every_byte():
    m = TermModel(20, 2)
    for b in "héllo 中文 ✓".encode():
        m.feed(bytes([b]))
    assert m.text_lines()[0] == "héllo 中文 ✓"


def test_escape_sequences_split_across_feeds():
    data = b"\x1b[31mred\x1b[0m \x1b]0;title\x07\x1b[2;3Hx\x1bPq#0\x1b\\y"
    whole = TermModel(20, 3)
    whole.feed(data)
    for cut in range(1, len(data)):
        m = TermModel(20, 3)
        m.feed(data[:cut])
        m.feed(data[cut:])
        assert m.text_lines() == whole.text_lines(), cut
        assert cell(m, 0, 0).fg == "red"
    assert whole.text_lines() == ["red", "  xy", ""]


HOSTILE = (
    b"\x1b]0;evil title\x07"  # title
    b"\x1b]52;c;cm0gLXJmIH4=\x1b\\"  # OSC 52 clipboard
    b"\x1b]8;;https://evil.example\x07link\x1b]8;;\x07"  # hyperlink: its text only
    b"\x1bPq#0;2;0;0;0#0!10~\x1b\\"  # DCS sixel
    b"\x1bP+q544e\x1b\\"  # XTGETTCAP
    b"\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\"
    b"\x07\x07"  # bells
    b"\x01\x02\x1c\x7f\xc2\x85\xc2\x9b1m"  # C0/C1 controls, C1 CSI
    b"\xe2\x80\xae\xe2\x80\x8bx"  # bidi override, zero-width space
    b"\x1b[38;5;999m\x1b[48;2;999;999;999m\x1b[99999999999999999999A"
    b"\x1b[?3h"  # DECCOLM: a view never resizes itself
    b"\x1b[>4;2m\x1b[c\x1b[6n\x1b[>c"  # modifyOtherKeys, device queries
)


def test_hostile_sequences_reach_no_cell_and_raise_nothing():
    m = TermModel(40, 3)
    m.feed(HOSTILE)
    m.feed(b"end")
    text = m.text_lines()
    assert (m.cols, m.rows) == (40, 3)
    assert "evil" not in "".join(text) and "sixel" not in "".join(text)
    assert "apc" not in "".join(text) and "544e" not in "".join(text)
    assert "link" in text[0] and "end" in "".join(text)
    for ch in all_cells(m):
        assert ch == "" or ch.isprintable() or ch == " ", repr(ch)
    assert not any(cell(m, x, 0).underscore for x in range(40))  # not CSI > 4 ; 2 m


def test_unterminated_osc_is_dropped_in_bounded_memory():
    m = TermModel(20, 2)
    m.feed(b"a\x1b]0;")
    tracemalloc.start()
    for _ in range(64):
        m.feed(b"x" * 65536)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 2 * 1024 * 1024
    m.feed(b"\x07b")
    assert m.text_lines()[0] == "ab"


def test_modes_follow_the_program():
    m = TermModel()
    assert m.modes.cursor_visible and not m.modes.app_cursor
    m.feed(b"\x1b[?1h\x1b=\x1b[?2004h\x1b[?25l")
    md = m.modes
    assert (md.app_cursor, md.app_keypad, md.bracketed_paste, md.cursor_visible) == (
        True,
        True,
        True,
        False,
    )
    m.feed(b"\x1b[?1l\x1b>\x1b[?2004l\x1b[?25h")
    md = m.modes
    assert (md.app_cursor, md.app_keypad, md.bracketed_paste, md.cursor_visible) == (
        False,
        False,
        False,
        True,
    )


def test_dec_line_drawing():
    m = TermModel(10, 2)
    m.feed(b"\x1b(0lqk\x1b(Bq")
    assert m.text_lines()[0] == "┌─┐q"


def test_take_dirty_reports_changed_rows_once():
    m = TermModel(10, 5)
    m.take_dirty()
    m.feed(b"\x1b[3;1Hx")
    assert m.take_dirty() == {2}
    assert m.take_dirty() == set()


def test_resize_smaller_moves_rows_above_the_cursor_to_the_scrollback():
    m = TermModel(10, 4)
    m.feed(b"1\r\n2\r\n3\r\n4")
    m.resize(8, 2)
    assert (m.cols, m.rows) == (8, 2)
    assert m.text_lines() == ["3", "4"] and m.lines_text() == ["1", "2", "3", "4"]
    assert m.cursor == (1, 1)
    m.resize(8, 3)
    assert m.text_lines() == ["3", "4", ""]
