"""`term.history.dated_rows`: a long run of plain lines is emulated at its ends only (each
line in between is its own row, dated by its own newline); what it gives must be what
emulating every byte gives, whatever else the stream does between such runs."""

from __future__ import annotations

import random

import pytest

import jobs_tui.term.history as history


def _stream(seed: int, count: int = 3000) -> bytes:
    rng = random.Random(seed)
    kinds = [
        b"\x1b[31mred %d\x1b[0m\r\n",
        b"\x1b[1;32m  ok\x1b[m %d \x1b[Kend\x1b[0K\r\n",
        b"\x1b[33m%d" + b"c" * 77 + b"\x1b[0m\r\n",  # 80 wide with its colours: wraps
        b"\x1b[2Kerased %d\r\n",
        b"progress 10%%\rprogress 100%% %d\r\n",
        b"%d" + b"w" * 100 + b"\r\n",  # wraps
        b"tab\t%d\r\n",
        b"\x1b(0qqq\x1b(B %d\r\n",  # DEC line drawing
        b"\x1b]0;title %d\x07\r\n",
        b"\x1b[?1049h\x1b[H\x1b[2Jvim %d\r\n~\r\n\x1b[?1049l",
        b"\x1b[4hins %d\x1b[4l\r\n",
        b"caf\xc3\xa9 %d\r\n",
        b"\x1b]0;unterminated %d",  # an OSC that swallows what follows until ST/BEL
        b"\x07 %d\r\n",
    ]
    out = []
    for i in range(count):
        roll = rng.random()
        if roll < 0.04:
            out.append(rng.choice(kinds) % i)
        elif roll < 0.5:
            out.append(b"\x1b[36mcoloured\x1b[0m line %d\x1b[K\r\n" % i)
        else:
            out.append(b"plain line %d\r\n" % i)
    return b"".join(out)


def _rows(data: bytes, times, skip: bool) -> list[tuple[str, int | None]]:
    runs = history._plain_runs
    if not skip:
        history._plain_runs = lambda *args: iter(())  # every byte emulated
    try:
        return [(r.text, r.at_ms) for r in history.dated_rows(data, 80, 24, times=times)]
    finally:
        history._plain_runs = runs


@pytest.mark.parametrize("seed", range(4))
def test_skipping_plain_lines_gives_what_emulating_them_gives(seed: int):
    data = _stream(seed)
    times = [(0, 1_000), (len(data) // 3, 2_000), (len(data) // 2 + 5, 3_000)]
    fast, slow = _rows(data, times, True), _rows(data, times, False)
    assert fast == slow
    assert len({ms for _, ms in fast}) == 3 and len(fast) > 2000


def test_a_run_of_plain_lines_is_dated_line_by_line():
    lines = [b"line %04d\r\n" % i for i in range(1000)]
    data = b"".join(lines)
    at = len(b"".join(lines[:500]))  # the time index: a new record at line 500's start
    rows = list(history.dated_rows(data, 80, 24, times=[(0, 1), (at, 2)]))
    assert [r.text for r in rows] == [f"line {i:04d}" for i in range(1000)]
    assert [r.at_ms for r in rows] == [1] * 500 + [2] * 500
    assert rows[600].offset == 600 * len(lines[0])  # its own line's start
