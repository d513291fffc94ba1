"""`<id>.log.size`: the shim's record of a terminal job's resizes (sizeindex), as the
renderers read it: the start size first, one record per size that showed a byte,
rotated-away records dropped, a torn or hostile file read as far as it is sane."""

from __future__ import annotations

import os
import stat

from jobs_tui.engine.shim.regdir import RegDir
from jobs_tui.engine.shim.sizeindex import RECORD, SizeIndexWriter, parse, size_at


def _read(path: str) -> list[tuple[int, int, int]]:
    with open(path, "rb") as fh:
        return parse(fh.read())


def test_resizes_are_recorded_at_their_byte_and_survive_a_rotation(tmp_path):
    path = str(tmp_path / "j1.log.size")
    directory = RegDir.open(str(tmp_path))
    try:
        writer = SizeIndexWriter(path, directory, 80, 24)
        writer.note(100, 120, 40)
        writer.note(100, 100, 30)  # no byte came at 120x40: it never showed
        writer.note(250, 100, 30)  # the size it has: nothing
        writer.note(300, 80, 24)
        assert _read(path) == [(0, 80, 24), (100, 100, 30), (300, 80, 24)]
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        writer.drop_before(200)  # bytes before 200 rotated away: 100x30 still sizes 200
        assert _read(path) == [(100, 100, 30), (300, 80, 24)]
        writer.close()
    finally:
        directory.close()
    records = _read(path)
    assert size_at(records, 150, (1, 1)) == (100, 30) and size_at(records, 99, (1, 1)) == (1, 1)
    assert size_at(records, 10**9, (1, 1)) == (80, 24)


def test_a_torn_or_hostile_size_file_is_read_as_far_as_it_is_sane():
    good = RECORD.pack(0, 80, 24) + RECORD.pack(10, 100, 30)
    assert parse(good + b"\x01\x02") == [(0, 80, 24), (10, 100, 30)]
    assert parse(good + RECORD.pack(5, 90, 20)) == [(0, 80, 24), (10, 100, 30)]  # backwards
    assert parse(RECORD.pack(0, 0, 24) + good) == []  # no sane size
    assert parse(good + RECORD.pack(20, 1 << 30, 24)) == [(0, 80, 24), (10, 100, 30)]
    assert parse(good + RECORD.pack(20, 80, 10_000)) == [(0, 80, 24), (10, 100, 30)]  # > 300
