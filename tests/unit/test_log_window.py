"""`read_lines`: pages of the retained log around an absolute offset, bounded and sanitized."""

from __future__ import annotations

import os
import random

import pytest

from jobs_tui.engine.logs.segments import LogMissing
from jobs_tui.engine.logs.window import read_lines
from jobs_tui.engine.shim.logwriter import LogWriter


def reference(data: bytes, cap: int) -> list[tuple[int, bytes]]:
    """Every complete line of `data` as (offset, bytes), a line longer than `cap` in pieces."""
    out, at = [], 0
    while True:
        nl = data.find(b"\n", at)
        if nl < 0:
            break
        out.append((at, data[at:nl]))
        at = nl + 1
    return out


@pytest.fixture
def log(tmp_path) -> str:
    return os.path.join(tmp_path, "j1.log")


def test_before_and_after_an_offset_with_offsets_and_sgr(log: str):
    lines = [f"line {i}" for i in range(100)]
    lines[50] = "\x1b[31mred\x1b[0m \x1b]0;title\x07after"
    with open(log, "wb") as f:
        f.write("".join(x + "\n" for x in lines).encode() + b"unfinished")
    starts = [0]
    for x in lines:
        starts.append(starts[-1] + len(x.encode()) + 1)
    page = read_lines(log, log + ".1", starts[50], before=3, after=2)
    assert page.lines == ["line 47", "line 48", "line 49", "\x1b[31mred\x1b[0m after", "line 51"]
    assert page.offsets == starts[47:52]
    assert page.start == starts[47] and page.end == starts[52]
    assert page.earlier_lines == 47 and not page.at_end and page.first == 0
    tail = read_lines(log, log + ".1", None, before=2)
    assert tail.lines == ["line 98", "line 99"] and tail.end == starts[100]
    assert tail.at_end and tail.partial == len(b"unfinished")
    head = read_lines(log, log + ".1", 0, after=2)
    assert head.lines == ["line 0", "line 1"] and head.at_start
    inside = read_lines(log, log + ".1", starts[10] + 3, after=1)  # inside a line: its start
    assert inside.lines == ["line 10"]


def test_bounds_in_lines_and_bytes_and_long_lines_in_pieces(log: str):
    with open(log, "wb") as f:
        f.write(b"a\n" + b"x" * 2500 + b"\nb\n")
    page = read_lines(log, log + ".1", None, before=10, line_cap=1000)
    assert page.lines[0] == "a" and page.lines[-1] == "b"
    assert all(len(x) <= 1000 for x in page.lines) and page.clipped
    assert "".join(page.lines[1:-1]) == "x" * 2500
    ahead = read_lines(log, log + ".1", 0, after=10, line_cap=1000)
    # backwards a long line is cut from its end, forwards from its start: the same bytes
    assert ahead.lines[0] == "a" and ahead.lines[-1] == "b" and ahead.clipped
    assert "".join(ahead.lines[1:-1]) == "x" * 2500 and len(ahead.lines) == len(page.lines)
    small = read_lines(log, log + ".1", 0, after=10, max_bytes=1500, line_cap=1000)
    assert small.lines == ["a", "x" * 1000]  # the byte bound stops it


@pytest.mark.parametrize("seed", range(6))
def test_pages_walk_the_whole_log_both_ways(log: str, seed: int):
    rng = random.Random(seed)
    data = b"".join(b"y" * rng.choice([0, 1, 5, 40, 300]) + b"\n" for _ in range(400))
    with open(log, "wb") as f:
        f.write(data)
    want = [(at, raw.decode()) for at, raw in reference(data, 10_000)]
    got, at = [], 0
    while True:  # forwards, page by page
        page = read_lines(log, log + ".1", at, after=rng.randint(1, 50), max_bytes=2000)
        got += list(zip(page.offsets, page.lines, strict=True))
        if page.at_end:
            break
        at = page.end
    assert got == want
    got, at = [], None
    while True:  # backwards
        page = read_lines(log, log + ".1", at, before=rng.randint(1, 50), max_bytes=2000)
        got = list(zip(page.offsets, page.lines, strict=True)) + got
        if page.at_start:
            break
        at = page.start
    assert got == want


def test_absolute_offsets_survive_rotation(log: str):
    writer = LogWriter(log, log + ".1", 4096)
    for i in range(3000):
        writer.write(b"%05d\n" % i)
    page = read_lines(log, log + ".1", 0, after=3)
    assert page.first > 0 and page.start == page.first  # before the retained log: its first
    number = int(page.lines[1])
    assert page.offsets[1] == number * 6
    again = read_lines(log, log + ".1", page.offsets[1], after=1)
    assert again.lines == [f"{number:05d}"]
    tail = read_lines(log, log + ".1", None, before=1)
    assert tail.lines == ["02999"] and tail.end == 3000 * 6 == tail.log_end


def test_a_missing_log_raises(log: str):
    with pytest.raises(LogMissing):
        read_lines(log, log + ".1", None, before=5)


@pytest.mark.parametrize("seed", range(4))
def test_the_follower_s_lines_know_where_they_start_however_the_bytes_are_split(seed: int):
    from jobs_tui.screens.log.lines import LineAssembler

    rng = random.Random(seed)
    data = b"".join(b"z" * rng.choice([0, 3, 70]) + b"\n" for _ in range(200)) + b"tail"
    assembler, starts, at = LineAssembler(), [], 1000  # the first byte's absolute offset
    while at - 1000 < len(data):
        piece = data[at - 1000 : at - 1000 + rng.randint(1, 300)]
        lines = assembler.feed(piece, at)
        assert len(assembler.starts) == len(lines)
        starts += assembler.starts
        at += len(piece)
    assert starts == [1000 + offset for offset, _ in reference(data, 10_000)]
    assert assembler.next_start == 1000 + len(data) - len(b"tail")
