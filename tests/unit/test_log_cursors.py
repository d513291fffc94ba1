"""Absolute byte offsets across rotations (read_since), the base file, and lazy rotation."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from jobs_tui.engine.logs.follower import LogFollower
from jobs_tui.engine.logs.segments import read_since
from jobs_tui.engine.shim.logwriter import LogWriter


def _writer(tmp_path, max_bytes: int) -> LogWriter:
    live = str(tmp_path / "j1.log")
    return LogWriter(live, live + ".1", max_bytes)


@settings(max_examples=60, deadline=None)
@given(
    chunks=st.lists(st.binary(min_size=1, max_size=90), min_size=1, max_size=40),
    max_bytes=st.integers(min_value=16, max_value=200),
    cap=st.integers(min_value=1, max_value=120),
)
def test_reading_from_offsets_returns_each_retained_byte_once(
    tmp_path_factory, chunks, max_bytes, cap
):
    tmp_path = tmp_path_factory.mktemp("since")
    writer = _writer(tmp_path, max_bytes)
    written = b""
    offset, seen, skipped = 0, b"", 0
    for chunk in chunks:
        writer.write(chunk)
        written += chunk
        got = read_since(writer.live, writer.previous, offset, cap)
        assert got.end == len(written)
        skipped += got.skipped
        assert got.offset == offset + got.skipped
        assert got.data == written[got.offset : got.offset + len(got.data)]
        seen += got.data
        offset = got.offset + len(got.data)
    while offset < len(written):
        got = read_since(writer.live, writer.previous, offset, cap)
        skipped += got.skipped
        assert got.data == written[got.offset : got.offset + len(got.data)]
        offset = got.offset + len(got.data)
        seen += got.data
    assert skipped + len(seen) == len(written) == offset


def test_offset_before_the_retained_log_reports_what_was_skipped(tmp_path):
    writer = _writer(tmp_path, 10)
    writer.write(bytes(range(35)))
    got = read_since(writer.live, writer.previous, 0, 100)
    assert got.skipped == 20 and got.offset == 20 and got.data == bytes(range(20, 35))
    assert Path(writer.base).read_text().split()[1] == "30"


def test_a_full_segment_rotates_only_when_more_output_arrives(tmp_path):
    writer = _writer(tmp_path, 8)
    read_end, write_end = os.pipe()
    os.write(write_end, b"12345678")
    os.close(write_end)
    assert writer.read_from(read_end) == 8
    assert writer.read_from(read_end) == 0  # end of input: no empty live segment
    assert Path(writer.live).read_bytes() == b"12345678"
    assert not os.path.exists(writer.previous)
    os.close(read_end)


def test_follower_follows_across_rotations_from_one_absolute_position(tmp_path):
    writer = _writer(tmp_path, 10)
    follower = LogFollower("j1", writer.live, writer.previous, 0)
    got = b""
    for piece in (b"abc", b"defghijkl", b"mnopqrstuvw", b"xyz"):
        writer.write(piece)
        got += follower.read().data
    assert got == b"abcdefghijklmnopqrstuvwxyz" and follower.position == 26
    later = LogFollower("j1", writer.live, writer.previous, 23)  # a position survives rotations
    assert later.read().data == b"xyz"


def test_a_follower_that_fell_behind_is_told_what_rotated_away(tmp_path):
    writer = _writer(tmp_path, 10)
    follower = LogFollower("j1", writer.live, writer.previous, 0)
    writer.write(bytes(range(35)))
    got = follower.read(100)
    assert got.skipped == 20 and got.offset == 20 and got.data == bytes(range(20, 35))
    assert follower.position == got.end == 35


def test_skip_to_passes_over_what_a_slow_reader_missed(tmp_path):
    writer = _writer(tmp_path, 100)
    follower = LogFollower("j1", writer.live, writer.previous, 0)
    writer.write(b"a" * 60)
    assert follower.skip_to(50) == 50
    assert follower.read().data == b"a" * 10
    writer.write(b"b" * 30 + b"c" * 50)  # rotates after 40 more bytes
    assert follower.skip_to(135) == 75  # the rest of the old segment, then the new one
    assert follower.read().data == b"c" * 5
    assert follower.skip_to(0) == 0 and follower.position == 140  # never backwards
