"""The time index beside a log: spacing, rotation, bounds, torn files (files, fake clocks)."""

from __future__ import annotations

import os
from pathlib import Path

from jobs_tui.engine.shim.logwriter import LogWriter
from jobs_tui.engine.shim.protocol import times_of
from jobs_tui.engine.shim.timeindex import (
    INTERVAL_MS,
    MAX_FILE_BYTES,
    MAX_RECORDS,
    RECORD,
    TimeIndexWriter,
    offset_since,
    parse,
    time_at,
)


class Clock:
    def __init__(self, ms: int = 1_700_000_000_000) -> None:
        self.ms = ms

    def __call__(self) -> float:
        return self.ms / 1000

    def advance(self, ms: int) -> None:
        self.ms += ms


def on_disk(path: str) -> list[tuple[int, int]]:
    return parse(Path(path).read_bytes())


def test_one_record_per_interval_of_output_and_only_when_output_arrives(tmp_path: Path):
    clock = Clock()
    index = TimeIndexWriter(str(tmp_path / "j1.log.time"), clock)
    t0 = clock.ms
    for offset, step in ((0, 0), (10, 50), (20, 50), (30, 150), (40, 5000)):
        clock.advance(step)
        index.note(offset)
    assert on_disk(index.path) == [(0, t0), (20, t0 + 100), (30, t0 + 250), (40, t0 + 5250)]
    assert oct(os.stat(index.path).st_mode & 0o777) == "0o600"


def test_time_at_and_offset_since_read_the_records():
    records = [(0, 1000), (500, 1200), (900, 5000)]
    assert time_at(records, 0) == 1000 and time_at(records, 499) == 1000
    assert time_at(records, 500) == 1200 and time_at(records, 10**9) == 5000
    assert time_at([], 5) is None
    assert offset_since(records, 0) == 0 and offset_since(records, 1001) == 500
    assert offset_since(records, 1200) == 500 and offset_since(records, 1201) == 900
    assert offset_since(records, 5001) is None


def test_a_clock_stepped_back_never_makes_times_decrease(tmp_path: Path):
    clock = Clock()
    index = TimeIndexWriter(str(tmp_path / "t"), clock)
    index.note(0)
    clock.advance(-60_000)
    index.note(5)
    clock.advance(60_000 + INTERVAL_MS)
    index.note(9)
    times = [ms for _, ms in on_disk(index.path)]
    assert times == sorted(times) and len(times) == 2


def test_a_long_slow_job_keeps_the_index_bounded_and_its_first_record(tmp_path: Path):
    clock = Clock()
    index = TimeIndexWriter(str(tmp_path / "t"), clock)
    t0 = clock.ms
    for i in range(3 * MAX_RECORDS):
        index.note(i * 80)
        clock.advance(INTERVAL_MS * 3)
    records = on_disk(index.path)
    assert records == list(zip(index.pairs[0::2], index.pairs[1::2], strict=True))
    assert MAX_RECORDS // 4 < len(records) <= MAX_RECORDS
    assert os.path.getsize(index.path) <= MAX_FILE_BYTES
    assert records[0] == (0, t0)
    assert [o for o, _ in records] == sorted(o for o, _ in records)
    assert records[-1][0] >= (3 * MAX_RECORDS - 4) * 80  # the latest output is still dated


def test_rotation_drops_the_records_of_bytes_rotated_away(tmp_path: Path):
    live = str(tmp_path / "j1.log")
    writer = LogWriter(live, live + ".1", max_bytes=100)
    clock = Clock()
    writer.times.clock = clock
    for _ in range(20):  # 20 x 60 bytes, 200 ms apart: 11 rotations
        writer.write(b"x" * 60)
        clock.advance(200)
    writer.close()
    kept_from = writer.total - writer.size - os.path.getsize(live + ".1")
    records = on_disk(times_of(live))
    assert records[0][0] <= kept_from < records[1][0]  # the first kept byte is still dated
    assert len(records) <= 4
    assert time_at(records, writer.total - 1) == clock.ms - 200


def test_torn_or_disordered_files_end_the_index_there():
    good = RECORD.pack(0, 1000) + RECORD.pack(50, 1100)
    assert parse(good + b"\x01\x02") == [(0, 1000), (50, 1100)]
    assert parse(good + RECORD.pack(10, 1200) + RECORD.pack(60, 1300)) == [(0, 1000), (50, 1100)]
    assert parse(good + RECORD.pack(60, 900)) == [(0, 1000), (50, 1100)]
    assert parse(b"") == []
