"""The repeat detector (issue 27, output running away): masking, counting across chunks,
line ends, bounded memory, and its whole-run shortcuts against a line-by-line reference."""

from __future__ import annotations

import random

import pytest

from jobs_tui.engine.shim.repeats import LINE_CAP, RepeatDetector, _mask_slow, key_of, mask

EXACT = 1e12  # keys a second: every line keyed one by one (no sampling)


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (b"ECONNREFUSED 127.0.0.1:5432", b"ECONNREFUSED #.#.#.#:#"),
        (b"try 9", b"try #"),
        (b"try 10", b"try #"),
        (b"ptr 0x7ffd1234abcd here", b"ptr # here"),
        (b"at 0XDEAD", b"at #"),
        (b"commit 3fa9c0e1d2 ok", b"commit # ok"),
        (b"deadbeef cafe", b"deadbeef cafe"),  # hex letters alone are words
        (b"h264 a1b2", b"h# a#b#"),
        (b"no numbers", b"no numbers"),
        (b"", b""),
    ],
)
def test_numbers_are_masked_words_are_not(text: bytes, masked: bytes):
    assert mask(text) == masked


def test_line_ends_and_carriage_returns():
    assert key_of(b"x 1\r\n") == key_of(b"x 2\n") == b"x #"
    assert key_of(b"10%\r50%\rdone 3\n") == b"done #"  # what a terminal shows last


def _feed(detector: RepeatDetector, data: bytes, sizes: list[int]) -> None:
    """In chunks of `sizes` (cycled), through one reused buffer as the log writer does."""
    buffer = bytearray(max(sizes))
    pos, index = 0, 0
    while pos < len(data):
        size = sizes[index % len(sizes)]
        chunk = data[pos : pos + size]
        buffer[: len(chunk)] = chunk
        detector.feed(buffer, 0, len(chunk))
        pos += len(chunk)
        index += 1


def test_a_flood_of_one_line_raises_one_note_and_keeps_counting():
    times = iter(range(1000, 10**9))
    detector = RepeatDetector(100, clock=lambda: next(times), line_rate=0)  # no budget at all
    _feed(detector, b"ECONNREFUSED 127.0.0.1:5432\n" * 50_000, [65536, 7, 4093])
    note = detector.fields()
    assert note == {
        "line": "ECONNREFUSED 127.0.0.1:5432",
        "count": 50_000,
        "since": 1000,
        "ongoing": True,
        "approx": False,  # counted byte for byte, without any line keyed past the first
    }
    assert detector.raised == 1


def test_counts_that_change_are_masked():
    detector = RepeatDetector(1000, line_rate=EXACT)
    lines = b"".join(b"attempt %d: ECONNREFUSED 127.0.0.1:5432\n" % i for i in range(5000))
    _feed(detector, lines, [1 << 20])
    assert detector.fields()["count"] == 5000
    assert detector.fields()["line"] == "attempt 0: ECONNREFUSED 127.0.0.1:5432"


def test_below_the_limit_no_note_and_a_broken_run_ends_its_note():
    detector = RepeatDetector(10, line_rate=EXACT)
    _feed(detector, b"same\n" * 9 + b"other\n" + b"same\n" * 9, [3])
    assert detector.fields() is None and detector.raised == 0
    _feed(detector, b"same\n" * 5 + b"other\n", [4096])
    note = detector.fields()
    assert note == {
        "line": "same",
        "count": 14,
        "since": note["since"],
        "ongoing": False,
        "approx": False,
    }
    _feed(detector, b"x\n" * 10, [5])
    assert detector.raised == 2 and detector.fields()["line"] == "x"


def test_a_line_split_anywhere_is_one_line():
    data = b"error: disk 7 failing\r\n" * 300
    for size in (1, 2, 3, 5, 22, 23, 24, 1000):
        detector = RepeatDetector(300, line_rate=EXACT)
        _feed(detector, data, [size])
        assert detector.fields() is not None and detector.fields()["count"] == 300, size


def test_a_huge_line_costs_bounded_memory():
    detector = RepeatDetector(3, line_rate=EXACT)
    big = b"A" * (5 << 20)
    _feed(detector, (big + b" 1\n") + (big + b" 2\n") + (big + b" 3\n"), [1 << 20])
    assert len(detector.partial) <= LINE_CAP and len(detector.first) <= LINE_CAP
    assert detector.fields()["count"] == 3  # compared on their first LINE_CAP bytes
    _feed(detector, b"A" * (3 << 20), [1 << 20])  # no line end at all
    assert len(detector.partial) <= LINE_CAP


def test_a_limit_below_two_is_refused():
    with pytest.raises(ValueError, match="at least 2"):
        RepeatDetector(1)


def _reference(data: bytes, limit: int) -> list[tuple[bytes, int]]:
    """Line by line: every run that reached `limit`, (key, length)."""
    runs: list[list] = []
    for line in data.split(b"\n")[:-1]:
        key = key_of(line[:LINE_CAP])
        if runs and runs[-1][0] == key:
            runs[-1][1] += 1
        else:
            runs.append([key, 1])
    return [(k, n) for k, n in runs if n >= limit]


@pytest.mark.parametrize("seed", range(12))
def test_whole_run_shortcuts_agree_with_counting_line_by_line(seed: int):
    """Within the line budget: runs among short ones, in varied chunk sizes, the same runs
    reach the limit with the same counts as line by line."""
    rng = random.Random(seed)
    limit = 40
    words = [b"connect", b"retry", b"GET /api", b"ok", b"warn", b"x"]
    lines: list[bytes] = []
    for _ in range(rng.randint(20, 60)):
        word = rng.choice(words) + b" " + rng.choice(words)
        if rng.random() < 0.3:
            n = rng.randint(limit * 6, limit * 30)  # a long run, numbers varying or not
            vary = rng.random() < 0.5
            lines += [word + (b" %d" % i if vary else b" 7") + b"\n" for i in range(n)]
        else:
            lines += [word + b" %d\n" % rng.randint(0, 99)] * rng.randint(1, 3)
    data = b"".join(lines)
    sizes = [rng.choice([1, 17, 4096, 65536, 1 << 20]) for _ in range(5)]
    detector = RepeatDetector(limit, line_rate=EXACT)
    want = _reference(data, limit)
    buffer = bytearray(max(sizes))
    pos = index = 0
    while pos < len(data):
        chunk = data[pos : pos + sizes[index % len(sizes)]]
        buffer[: len(chunk)] = chunk
        detector.feed(buffer, 0, len(chunk))
        pos += len(chunk)
        index += 1
    assert detector.raised == len(want), (detector.raised, len(want), sizes)
    if want:
        note = detector.fields()
        assert (key_of(note["line"].encode()), note["count"]) == want[-1]


def test_past_the_budget_a_counter_flood_is_sampled_and_counted_from_its_bytes():
    detector = RepeatDetector(1000, line_rate=0, stride=4096)
    lines = [b"attempt %d: ECONNREFUSED 127.0.0.1:5432\n" % i for i in range(100_000)]
    _feed(
        detector,
        b"".join(b"varied %d\n" % i for i in range(10)) + b"".join(lines),
        [1 << 20, 65536],
    )
    note = detector.fields()
    assert note["line"].startswith("attempt ") and note["approx"] is True
    assert 0.95 * 100_000 <= note["count"] <= 1.05 * 100_000
    assert detector.raised == 1
    _feed(detector, b"something else\n" * 1000, [4096])  # seen at the next sample
    assert detector.fields()["ongoing"] is False


def test_past_the_budget_varied_output_raises_nothing():
    rng = random.Random(5)
    words = [b"alpha", b"beta", b"gamma", b"delta", b"eps", b"zeta", b"eta"]
    data = b"".join(b" ".join(rng.choices(words, k=6)) + b"\n" for _ in range(200_000))
    detector = RepeatDetector(100, line_rate=0, stride=4096)
    _feed(detector, data, [1 << 20])
    assert detector.raised == 0


@pytest.mark.parametrize("seed", range(5))
def test_the_quick_mask_is_the_token_by_token_one(seed: int):
    rng = random.Random(seed)
    alphabet = b"0123456789abcdefxX #.:-/AZ\x00g"
    for _ in range(3000):
        text = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert mask(text) == _mask_slow(text), text
