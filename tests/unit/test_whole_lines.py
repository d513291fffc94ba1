"""`WholeLines` against a real rotating `LogWriter`: delivered + skipped = written, and
no line is ever spliced from two (a gap's cut line is dropped and counted)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from jobs_tui.engine.logs.follower import LogFollower
from jobs_tui.engine.logs.wholelines import WholeLines
from jobs_tui.engine.shim.logwriter import LogWriter

NUMBERED = re.compile(r"(\d+):(y*)\n")


def _line(n: int) -> bytes:
    """Line `n`: its number, then a width of its own (so a spliced line shows)."""
    return f"{n}:{'y' * (n * 7 % 53)}\n".encode()


def _setup(tmp_path, max_bytes: int, rest_s: float = 60.0) -> tuple[LogWriter, WholeLines]:
    """A writer and a reader; an unfinished line is held `rest_s` (by default for longer
    than a test runs: showing one early is the documented exception to wholeness)."""
    live = str(tmp_path / "j1.log")
    writer = LogWriter(live, live + ".1", max_bytes)
    return writer, WholeLines(LogFollower("j1", live, live + ".1", 0), rest_s=rest_s)


def _numbers(text: str) -> list[int]:
    numbers, at = [], 0
    while at < len(text):
        match = NUMBERED.match(text, at)
        assert match, f"a torn or spliced line: {text[at : at + 80]!r}"
        n = int(match.group(1))
        assert match.group(0).encode() == _line(n), match.group(0)
        numbers.append(n)
        at = match.end()
    return numbers


@settings(max_examples=40, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.integers(0, 40), st.integers(1, 300), st.integers(1, 400)),
        min_size=1,
        max_size=25,
    ),
    max_bytes=st.integers(min_value=40, max_value=600),
)
def test_delivered_plus_skipped_is_written_and_every_line_whole(tmp_path_factory, steps, max_bytes):
    tmp_path = tmp_path_factory.mktemp("whole")
    writer, lines = _setup(tmp_path, max_bytes)
    number, written, delivered, skipped, text = 0, 0, 0, 0, ""
    for count, split, cap in steps:
        piece = b"".join(_line(n) for n in range(number, number + count))
        number += count
        for at in range(0, len(piece), split):  # the writer's pieces cut lines anywhere
            writer.write(piece[at : at + split])
        written += len(piece)
        got = lines.read(running=True, cap=cap)
        delivered, skipped, text = delivered + got.raw, skipped + got.skipped, text + got.text
        assert got.offset == delivered + skipped
    while True:  # the job ended: read what is left
        got = lines.read(running=False, cap=512)
        delivered, skipped, text = delivered + got.raw, skipped + got.skipped, text + got.text
        if not got.more:
            break
    assert delivered + skipped == written == lines.position
    assert len(text.encode()) == delivered
    numbers = _numbers(text)
    assert numbers == sorted(set(numbers))
    assert delivered == sum(len(_line(n)) for n in numbers)


def test_a_gap_drops_the_rest_of_the_line_it_cut_and_counts_it(tmp_path):
    writer, lines = _setup(tmp_path, 100)
    writer.write(b"first line\n")
    got = lines.read(running=True)
    assert (got.text, got.skipped) == ("first line\n", 0)
    writer.write(b"a" * 150 + b"\n" + b"b" * 30 + b"\n" + b"c" * 60 + b"\n" + b"tail")
    # rotated at 100 and 200: what is left starts inside the line of a's
    got = lines.read(running=True)
    assert got.text == "b" * 30 + "\n" + "c" * 60 + "\n"  # the tail waits for its newline
    assert got.skipped == 151  # the line of a's, newline included: its start rotated away
    assert got.offset == 11 + 151 + 31 + 61


def test_an_unfinished_line_waits_for_its_newline_then_for_rest(tmp_path):
    writer, lines = _setup(tmp_path, 0, rest_s=0.0)
    writer.write(b"done\nPassword: ")
    assert lines.read(running=True).text == "done\n"
    assert lines.read(running=True).text == "Password: "  # the log rested: shown as it is
    writer.write(b"\n")
    assert lines.read(running=True).text == "\n"


def test_a_held_line_whose_end_rotated_away_is_counted_not_shown(tmp_path):
    writer, lines = _setup(tmp_path, 64)
    writer.write(b"ok\nhalf a li")
    assert lines.read(running=True).text == "ok\n"
    writer.write(b"ne\n" + b"z" * 200 + b"\nlast\n")
    got = lines.read(running=True)
    assert "half" not in got.text and "ne\n" not in got.text
    assert got.raw + got.skipped + 3 == 3 + 9 + 3 + 201 + 5


def test_a_line_that_keeps_growing_is_shown_once_it_waited_long_enough(tmp_path):
    """A `\\r` progress bar never rests, yet shows within `rest_s` of its start."""
    import time

    writer, _ = _setup(tmp_path, 0)
    lines = WholeLines(LogFollower("j1", writer.live, writer.previous, 0), rest_s=0.2)
    writer.write(b"10%\r")
    assert lines.read(running=True).text == ""
    time.sleep(0.05)
    writer.write(b"20%\r")
    assert lines.read(running=True).text == ""  # held: its end may still come at once
    deadline = time.monotonic() + 5
    shown = ""
    while not shown and time.monotonic() < deadline:
        writer.write(b"30%\r")
        shown = lines.read(running=True).text
        time.sleep(0.05)
    assert shown, "a line that keeps growing is shown once it waited rest_s"
    writer.write(b"done\n")
    assert lines.read(running=True).text.endswith("done\n")


def test_a_concurrent_writer_across_many_rotations_accounts_every_byte(tmp_path):
    """A writer thread as fast as it goes through 4 KiB segments (hundreds of rotations
    under the reader's feet, the base file swapped in between its opens); the reader's
    delivered + skipped is what was written, and each line it delivered is whole."""
    import threading

    writer, lines = _setup(tmp_path, 4096)
    total = 40_000
    done = threading.Event()

    def write() -> None:
        try:
            for start in range(0, total, 250):
                writer.write(b"".join(_line(n) for n in range(start, start + 250)))
        finally:
            done.set()

    thread = threading.Thread(target=write)
    thread.start()
    delivered, skipped, text = 0, 0, []
    while True:
        ended = done.is_set()
        got = lines.read(running=not ended, cap=8192)
        delivered, skipped = delivered + got.raw, skipped + got.skipped
        text.append(got.text)
        if ended and not got.more:
            break
    thread.join()
    written = sum(len(_line(n)) for n in range(total))
    assert writer.rotations > 100
    assert delivered + skipped == written == lines.position
    numbers = _numbers("".join(text))
    assert numbers == sorted(set(numbers)) and skipped > 0
    assert delivered == sum(len(_line(n)) for n in numbers)
