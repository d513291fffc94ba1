"""`term.text`: a terminal job's bytes as the rows its terminal shows (issue 23, F)."""

from __future__ import annotations

from jobs_tui.engine import JobManager
from jobs_tui.term.text import TEXT_BYTES, render
from tests.cli.test_tty_text import STATUS, VIM_LIKE

ALT_ON, ALT_OFF = b"\x1b[?1049h", b"\x1b[?1049l"


def test_scrollback_then_the_screen_trailing_blank_rows_dropped():
    data = b"".join(b"line %d\r\n" % i for i in range(30)) + b"prompt$ "
    shown = render(data, 20, 5)
    assert shown.lines == [f"line {i}" for i in range(30)] + ["prompt$"]
    assert shown.last_line == "prompt$" and not shown.alt_screen


def test_a_program_that_left_its_alternate_screen_shows_the_main_one_again():
    data = b"$ vim\r\n" + ALT_ON + b"\x1b[H\x1b[2J~\r\n~\r\n" + ALT_OFF + b"$ \r\n"
    shown = render(data, 20, 5)
    assert shown.lines == ["$ vim", "$"] and not shown.alt_screen


def test_overwritten_text_and_width_probes_are_gone():
    data = ALT_ON + "▽".encode() + b"\x1b[6n\x1b[H\x1b[2Jtext\x1b[5;1Hstatus"
    shown = render(data, 20, 5)
    assert shown.lines == ["text", "", "", "", "status"] and shown.alt_screen


def test_a_cut_inside_an_alternate_screen_session_stays_on_it():
    # the log's last bytes begin inside vim's session: its leaving must not show vim's
    # screen as the main one, and no half line at the cut is shown
    data = b"half a line\r\n\x1b[1;1Hvim screen\r\n" + ALT_OFF + b"$ back\r\n"
    shown = render(data, 20, 5, whole=False)
    assert shown.lines == ["$ back"]


def test_a_long_log_is_rendered_from_its_last_bytes_only():
    data = b"".join(b"row %06d\r\n" % i for i in range(TEXT_BYTES // 6))
    shown = render(data, 40, 10)
    assert shown.lines[-1] == f"row {TEXT_BYTES // 6 - 1:06d}"
    assert len(shown.lines) < TEXT_BYTES // 6 and shown.lines[0].startswith("row ")


def test_controls_never_reach_the_text():
    shown = render(b"a\x1b]0;title\x07b\xe2\x80\xaec\x07\x00d", 20, 3)
    assert shown.lines == ["ab\ufffdcd"]


async def test_the_finish_line_of_a_terminal_job_has_its_screens_last_line(
    registry_dir: str,
):
    from jobs_tui.app.mcp.notify import finish_text
    from jobs_tui.app.tty.text import shown_last_line

    async with JobManager(cwd=".", registry_dir=registry_dir) as jm:
        rec = await jm.start(VIM_LIKE + "; exit 3", label="vim", tty=True)
        done = await jm.wait(rec.id, 30_000)
        assert not done.running and done.last_line != STATUS  # the engine's: its bytes'
        shown = shown_last_line(jm.paths, done)
        assert shown.last_line == STATUS
        assert finish_text(shown).endswith(f"last line: {STATUS}")
        assert "▽" not in finish_text(shown)


def test_an_alternate_screen_from_its_last_clear_is_what_feeding_it_all_shows():
    from jobs_tui.term.model import TermModel

    frames = b"".join(
        b"\x1b[H\x1b[2J" + b"".join(b"\x1b[%d;1Hrow %d of frame %d" % (r, r, f) for r in (1, 3, 5))
        for f in range(50)
    )
    data = b"".join(b"main %d\r\n" % i for i in range(12)) + ALT_ON + frames + b"\x1b[2;1Hlast"
    model = TermModel(30, 6, 10_000)
    model.feed(data)
    everything = model.lines_text()
    while everything and not everything[-1]:
        everything.pop()
    assert render(data, 30, 6).lines == everything
    screen = ["row 1 of frame 49", "last", "row 3 of frame 49", "", "row 5 of frame 49"]
    assert everything[-5:] == screen
    assert "row 1 of frame 48" not in everything and everything[0] == "main 0"


def test_screen_rows_are_given_once_as_they_become_final():
    from jobs_tui.term.rows import ScreenRows

    rows = ScreenRows(20, 4)
    assert rows.feed(b"a\r\nb\r\nc") == ["a", "b"]  # `c`: the cursor's row, still open
    assert rows.pending() == ["c"]
    assert rows.feed(b"\r\nd\r\ne\r\nf\r\n") == ["c", "d", "e", "f"]  # scrolled or above
    # the main screen's rows above the cursor are final when an alternate screen hides them
    assert rows.feed(b"$ vim\r\n" + ALT_ON + b"\x1b[Hvim\x1b[4;1Hstatus") == ["$ vim"]
    assert rows.feed(ALT_OFF + b"$ ") == []
    assert rows.finish() == ["$"]
    alt = ScreenRows(20, 4)
    alt.feed(ALT_ON + b"\x1b[Hvim\x1b[4;1Hstatus")
    assert alt.finish() == ["vim", "", "", "status"]  # an alternate screen: when it ends


def _top_like(frames: int) -> bytes:
    """A `top`/`htop`-like program on the main screen (no alternate screen): one full
    clear and a whole first frame, then frames that move the cursor to each row that
    changed and rewrite only that (curses' way), no newline anywhere."""
    out = [b"$ top\r\n", b"\x1b[?25l\x1b[H\x1b[2J"]
    header = [b"top - load average: 0.00", b"Tasks: 85 total", b"", b"  PID USER  %CPU COMMAND"]
    for y, text in enumerate(header, 1):
        out.append(b"\x1b[%d;1H%s\x1b[K" % (y, text))
    for f in range(frames):
        out.append(b"\x1b[1;22H%5d.%02d\x1b[K" % (f, f % 100))  # the clock, in place
        for r in range(5, 5 + 18):
            out.append(b"\x1b[%d;1H%5d root  %4.1f proc-%d-%d\x1b[K" % (r, r * 7, f % 10, r, f))
        out.append(b"\x1b[24;1H\x1b[7m frame %d \x1b[m\x1b[K" % f)
    return b"".join(out)


def test_a_main_screen_program_is_its_last_frame_not_a_smear():
    from jobs_tui.term.model import TermModel

    frames = 800
    data = _top_like(frames)
    assert len(data) > 2 * TEXT_BYTES and b"\x1b[?1049h" not in data
    model = TermModel(80, 24, 10_000)
    model.feed(data)
    screen = model.text_lines()  # what the terminal showed at the end
    assert screen[1] == "Tasks: 85 total" and screen[-1] == f" frame {frames - 1}"
    shown = render(data, 80, 24).lines
    assert shown[-24:] == screen, shown
    assert "Tasks: 85 total" in shown and not any(";1H" in row for row in shown)
    assert sum(row.startswith(" frame") for row in shown) == 1  # no earlier frame left over


def test_dated_rows_are_every_final_row_with_the_time_of_the_bytes_that_made_it_final():
    from jobs_tui.term.history import dated_rows

    lines = [b"row %05d\r\n" % i for i in range(25_000)]  # more than any scrollback keeps
    data = b"".join(lines) + b"\x1b[?1049h\x1b[Hscreen\x1b[2;1Hstatus"
    half = len(b"".join(lines[:12_000]))  # the time index: a record at 0 and one here
    times = [(0, 1_000), (half + 4, 2_000)]  # ...four bytes into row 12000
    rows = list(dated_rows(data, 40, 5, times=times))
    texts = [r.text for r in rows]
    assert texts[:25_000] == [f"row {i:05d}" for i in range(25_000)]
    assert texts[25_000:] == ["screen", "status"]  # the alternate screen, at the end
    assert {r.at_ms for r in rows[:12_000]} == {1_000}  # its newline came before `half + 4`
    assert {r.at_ms for r in rows[12_000:]} == {2_000}
    offsets = [r.offset for r in rows]
    assert offsets == sorted(offsets)  # where the bytes that made each final begin
    assert all(r.offset < half + 4 for r in rows[:12_000])
    assert all(r.offset >= half + 4 for r in rows[12_001:])
