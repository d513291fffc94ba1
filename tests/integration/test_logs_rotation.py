"""Log rotation under a real job: contiguity of what is kept, and reads during rotation."""

from __future__ import annotations

import hashlib
import itertools
import os
import shlex
import sys
import threading
import time
from pathlib import Path

import pytest

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.logs.segments import LogMissing, open_pair, read_tail

from .helpers import until

MiB = 1024 * 1024
WIDTH = 16  # every line is 15 digits and a newline
TOTAL = 64 * MiB
LINES = TOTAL // WIDTH


def line_bytes(first: int, count: int) -> bytes:
    return b"".join(b"%015d\n" % i for i in range(first, first + count))


def expected(start: int, end: int) -> bytes:
    """Bytes [start, end) of what the job writes (see `writer_command`)."""
    first = start // WIDTH
    count = -(-end // WIDTH) - first
    offset = start - first * WIDTH
    return line_bytes(first, count)[offset : offset + end - start]


def writer_command(lines: int, chunk: int = 4096, pause: float = 0.0) -> str:
    """A job writing `lines` numbered lines in chunks, pausing `pause` s between them."""
    script = (
        "import sys,time\n"
        "w=sys.stdout.buffer.write\n"
        f"n={lines}\n"
        f"for k in range(0,n,{chunk}):\n"
        f"    w(b''.join(b'%015d\\n'%i for i in range(k,min(n,k+{chunk}))))\n"
        "    sys.stdout.buffer.flush()\n"
        f"    time.sleep({pause})\n"
    )
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"


def numbers(first: int, stop: int) -> list[str]:
    return [f"{i:015d}" for i in range(first, stop)]


def manager(tmp_path: Path, config: Config | None = None) -> JobManager:
    return JobManager(cwd=str(tmp_path), registry_dir=str(tmp_path / "reg"), config=config)


def check_slice(data: bytes) -> int:
    """`data` starts on a line and is a contiguous piece of the stream; its first line number."""
    if not data:
        return -1
    first = int(data[:15])
    assert data == line_bytes(first, len(data) // WIDTH + 1)[: len(data)], (
        f"read starting at line {first} ({len(data)} bytes) has a gap, repeat or reorder"
    )
    return first


class Reader(threading.Thread):
    """Reads the log over and over while the job writes; records the first failure."""

    def __init__(self, live: str, previous: str, max_bytes: int) -> None:
        super().__init__(daemon=True)
        self.live, self.previous, self.max_bytes = live, previous, max_bytes
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.reads = 0
        self.tails = 0
        self.pairs = 0
        self.crossing = 0  # whole-pair reads that spanned both segments
        self.starts: set[int] = set()  # where the retained log began, per whole-pair read
        self.last_first = -1

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.read_once()
        except BaseException as exc:  # reported by the test
            self.error = exc

    def read_once(self) -> None:
        for path in (self.live, self.previous):
            try:
                assert os.stat(path).st_size <= self.max_bytes, f"{path} exceeds max_log_bytes"
            except FileNotFoundError:
                pass
        try:
            if self.reads % 8 == 7:
                pair = open_pair(self.live, self.previous)
                try:
                    data = pair.read(0, pair.size)
                    self.crossing += 0 < pair.previous_size < pair.size
                finally:
                    pair.close()
                self.pairs += 1
                if data:
                    self.starts.add(int(data[:15]))
            else:
                tail = read_tail(self.live, self.previous, 1 + self.reads % 300)
                data = tail.data
                assert not tail.clipped
                self.tails += 1
        except LogMissing:
            if self.reads:
                raise
            time.sleep(0.001)
            return
        self.reads += 1
        first = check_slice(data)
        if first >= 0:
            assert first >= self.last_first - 2 * self.max_bytes // WIDTH
            self.last_first = max(self.last_first, first)


@pytest.mark.timeout(50)
async def test_64_mib_rotation_keeps_a_contiguous_suffix(tmp_path: Path) -> None:
    max_bytes = MiB
    config = Config(max_log_bytes=max_bytes)
    async with JobManager(
        cwd=str(tmp_path), registry_dir=str(tmp_path / "reg"), config=config
    ) as jm:
        rec = await jm.start(writer_command(LINES, pause=0.001), label="writer")
        live, previous = rec.log_path, rec.log_path + ".1"
        reader = Reader(live, previous, max_bytes)
        reader.start()
        try:
            rec = await jm.wait(rec.id, timeout_ms=40_000)
        finally:
            reader.stop.set()
            reader.join(10)
        assert not rec.running, "the writer did not finish in time"
        assert rec.exit_code == 0
        if reader.error is not None:
            raise reader.error

        # the reader really read during rotations, across the boundary, many times
        assert reader.tails >= 50 and reader.pairs >= 10
        assert reader.crossing >= 5
        # (>= 5, not more: a reader thread starved on a loaded machine sees fewer)
        assert len(reader.starts) >= 5, "reads never overlapped many rotations"

        prev_data = Path(previous).read_bytes()
        live_data = Path(live).read_bytes()
        assert len(prev_data) == max_bytes  # a rotated segment is exactly full
        assert len(live_data) <= max_bytes
        assert rec.log_bytes == TOTAL
        assert (TOTAL - len(live_data)) % max_bytes == 0  # each boundary split exactly
        kept = prev_data + live_data
        want = expected(TOTAL - len(kept), TOTAL)
        assert hashlib.sha256(kept).hexdigest() == hashlib.sha256(want).hexdigest()

        res = await jm.logs(rec.id, lines=5)
        assert res.lines == numbers(LINES - 5, LINES)
        assert res.truncated
        assert res.earlier_bytes == TOTAL - 5 * WIDTH
        assert res.earlier_lines is None  # lines before .log.1 are gone: not counted


@pytest.mark.timeout(30)
async def test_logs_without_rotation_count_earlier_lines(tmp_path: Path) -> None:
    async with manager(tmp_path) as jm:
        rec = await jm.start(writer_command(100))
        rec = await jm.wait(rec.id, timeout_ms=20_000)
        assert rec.exit_code == 0
        res = await jm.logs(rec.id, lines=5)
        assert res.lines == numbers(95, 100)
        assert res.truncated
        assert res.earlier_lines == 95
        assert res.earlier_bytes == 95 * WIDTH
        assert not os.path.exists(rec.log_path + ".1")

        res = await jm.logs(rec.id, lines=500)
        assert len(res.lines) == 100
        assert not res.truncated
        assert (res.earlier_bytes, res.earlier_lines) == (0, 0)


@pytest.mark.timeout(30)
async def test_logs_after_rotation_report_dropped_output(tmp_path: Path) -> None:
    max_bytes = 16 * 1024  # a multiple of the line width: segments start on a line
    config = Config(max_log_bytes=max_bytes)
    async with JobManager(
        cwd=str(tmp_path), registry_dir=str(tmp_path / "reg"), config=config
    ) as jm:
        count = 10_000
        rec = await jm.start(writer_command(count, chunk=777))
        rec = await jm.wait(rec.id, timeout_ms=20_000)
        assert rec.exit_code == 0
        total = count * WIDTH
        assert rec.log_bytes == total

        res = await jm.logs(rec.id, lines=10)
        assert res.lines == numbers(count - 10, count)
        assert res.truncated
        assert res.earlier_bytes == total - 10 * WIDTH
        assert res.earlier_lines is None

        # more lines than are kept: the whole retained suffix, and what came before it
        kept = os.path.getsize(rec.log_path) + os.path.getsize(rec.log_path + ".1")
        assert max_bytes < kept <= 2 * max_bytes
        res = await jm.logs(rec.id, lines=2000)
        assert len(res.lines) == kept // WIDTH
        assert res.lines[-1] == f"{count - 1:015d}"
        assert res.truncated
        assert res.earlier_bytes == total - kept


async def test_a_follower_resumes_exactly_where_the_tail_ended_across_a_rotation(
    registry_dir: str,
):
    async with JobManager(registry_dir=registry_dir, config=Config(max_log_bytes=64)) as jm:
        rec = await jm.start("cat", stdin=True)
        await jm.send(rec.id, "first line")
        log = jm.paths.log(rec.id)
        assert await until(lambda: log.exists() and log.stat().st_size >= 11, 5)
        tail = await jm.logs(rec.id)
        # one absolute position: the byte count of the job's output up to the tail's end
        assert tail.lines == ["first line"] and tail.position == 11
        more = "".join(f"line {n:02d}\n" for n in range(12))  # 96 bytes: one rotation at 64
        await jm.send(rec.id, more, newline=False, eof=True)
        await jm.wait(rec.id, 10_000)
        follower = jm.follow(rec.id, tail.position)
        got = b""
        while chunk := follower.read(16).data:
            got += chunk
        # The segment the tail ended in is .log.1 now: its rest, then the new live one.
        assert got == more.encode() and follower.position == 11 + 96
        assert (log.parent / (log.name + ".1")).stat().st_size == 64
        assert (await jm.logs(rec.id)).position == follower.position
        assert jm.follow(rec.id).position == follower.position  # no position: the end now


@pytest.mark.timeout(30)
async def test_the_time_index_dates_each_line_of_a_real_job_and_goes_with_clear(
    tmp_path: Path,
) -> None:
    """Three lines 0.4 s apart: each is dated within its own slice of the job's life."""
    from jobs_tui.engine.shim.timeindex import parse, time_at

    async with manager(tmp_path) as jm:
        before = time.time() * 1000
        rec = await jm.start("for i in 1 2 3; do echo line$i; sleep 0.4; done")
        rec = await jm.wait(rec.id, timeout_ms=20_000)
        after = time.time() * 1000
        times_path = jm.paths.log_times(rec.id)
        records = parse(times_path.read_bytes())
        data = Path(rec.log_path).read_bytes()
        stamps = [time_at(records, data.index(b"line%d" % i)) for i in (1, 2, 3)]
        assert all(s is not None and before - 1000 <= s <= after for s in stamps), stamps
        gaps = [b - a for a, b in itertools.pairwise(stamps)]
        assert all(300 <= gap <= 1500 for gap in gaps), gaps
        await jm.clear(rec.id)
        assert not times_path.exists()
