"""Searching a retained log and dating its lines (hand-made segments and time index)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from jobs_tui.engine.logs.search import SearchLine, search, since_ms
from jobs_tui.engine.shim.timeindex import RECORD

T0 = 1_800_000_000_000


def make_log(tmp_path: Path, previous: bytes, live: bytes, first: int, times) -> tuple[str, str]:
    """`j1.log.1` + `j1.log`, the pair starting at absolute `first`, dated by `times`."""
    live_path = tmp_path / "j1.log"
    (tmp_path / "j1.log.1").write_bytes(previous)
    live_path.write_bytes(live)
    inode = os.stat(live_path).st_ino
    (tmp_path / "j1.log.base").write_text(f"{inode} {first + len(previous)}")
    (tmp_path / "j1.log.time").write_bytes(b"".join(RECORD.pack(o, t) for o, t in times))
    return str(live_path), str(tmp_path / "j1.log.1")


def numbered(first: int, count: int) -> bytes:
    return b"".join(b"line %04d\n" % i for i in range(first, first + count))  # 10 bytes each


def test_matches_and_context_across_both_segments_with_offsets_and_times(tmp_path: Path):
    # 1000 bytes rotated away; .log.1 holds lines 100-149, .log lines 150-199
    times = [(1000, T0), (1500, T0 + 5000), (1800, T0 + 9000)]
    live, previous = make_log(tmp_path, numbered(100, 50), numbered(150, 50), 1000, times)
    found = search(live, previous, re.compile(r"line 01(49|50|80)$"), context=1)
    assert [(x.text, x.match) for x in found.lines] == [
        ("line 0148", False),
        ("line 0149", True),
        ("line 0150", True),
        ("line 0151", False),
        ("line 0179", False),
        ("line 0180", True),
        ("line 0181", False),
    ]
    assert [x.gap for x in found.lines] == [False] * 4 + [True, False, False]
    assert found.lines[1] == SearchLine(1490, "line 0149", True, T0)
    assert found.lines[2].offset == 1500 and found.lines[2].at_ms == T0 + 5000
    assert found.lines[5].offset == 1800 and found.lines[5].at_ms == T0 + 9000
    assert (found.matches, found.cut) == (3, 0)


def test_output_is_bounded_and_says_how_many_matches_were_cut(tmp_path: Path):
    live, previous = make_log(tmp_path, b"", numbered(0, 500), 0, [(0, T0)])
    found = search(live, previous, re.compile("line"), limit=7)
    assert len(found.lines) == 7 and (found.matches, found.cut) == (500, 493)


def test_since_starts_at_the_line_holding_the_first_byte_written_since(tmp_path: Path):
    times = [(0, T0), (205, T0 + 60_000)]  # a write began mid-line 20
    live, previous = make_log(tmp_path, numbered(0, 10), numbered(10, 20), 0, times)
    found = search(live, previous, re.compile("line"), since=T0 + 30_000)
    assert found.lines[0].text == "line 0020" and found.matches == 10
    assert search(live, previous, re.compile("line"), since=T0 + 61_000).lines == []


def test_escapes_are_removed_before_matching_and_from_what_is_returned(tmp_path: Path):
    live, previous = make_log(tmp_path, b"", b"\x1b[31mERR\x1b[0m: disk\x07\nok\n", 0, [])
    (hit,) = search(live, previous, re.compile(r"^ERR: disk")).lines
    assert hit.text.startswith("ERR: disk") and "\x1b" not in hit.text and hit.at_ms is None


def test_since_reads_durations_and_iso_times():
    now = T0
    assert since_ms("90s", now) == now - 90_000 and since_ms("5m", now) == now - 300_000
    assert since_ms("2h", now) == now - 7_200_000 and since_ms("250ms", now) == now - 250
    assert since_ms("2027-01-15T08:00:00Z") == 1_800_000_000_000
    assert since_ms("2027-01-15T09:00:00+01:00") == 1_800_000_000_000
    for bad in ("5 minutes", "2027-02-30T00:00:00Z", "2027-01-15T08:00:00", "0s"):
        with pytest.raises(ValueError):
            since_ms(bad, now)
