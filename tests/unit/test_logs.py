"""LogWriter rotation and the two-segment readers, on plain files (no processes)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobs_tui.engine.logs import segments as logs
from jobs_tui.engine.logs.segments import (
    LogMissing,
    LogWriter,
    TailRead,
    open_pair,
    read_page,
    read_tail,
)

HYPOTHESIS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# -- helpers ---------------------------------------------------------------------------------
class Log:
    """A `<id>.log` / `<id>.log.1` pair in a fresh directory."""

    def __init__(self, root: Path, name: str = "j1") -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.live = str(root / f"{name}.log")
        self.previous = self.live + ".1"
        for path in (self.live, self.previous):
            if os.path.exists(path):
                os.unlink(path)

    def writer(self, max_bytes: int) -> LogWriter:
        return LogWriter(self.live, self.previous, max_bytes)

    def segment(self, path: str) -> bytes | None:
        try:
            with open(path, "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def retained(self) -> bytes:
        return (self.segment(self.previous) or b"") + (self.segment(self.live) or b"")

    def set(self, previous: bytes | None, live: bytes | None) -> None:
        for path, data in ((self.previous, previous), (self.live, live)):
            if data is None:
                if os.path.exists(path):
                    os.unlink(path)
            else:
                with open(path, "wb") as f:
                    f.write(data)

    def tail(self, lines: int, **kw: int) -> TailRead:
        return read_tail(self.live, self.previous, lines, **kw)


counter = 0


@pytest.fixture
def log(tmp_path: Path) -> Log:
    return Log(tmp_path)


def fresh(tmp_path: Path) -> Log:
    """A new pair per hypothesis example (the tmp_path fixture is shared by all of them)."""
    global counter
    counter += 1
    return Log(tmp_path / f"ex{counter}")


def stream(n: int) -> bytes:
    """n deterministic, non-repeating-looking bytes (so a misplaced chunk is visible)."""
    return bytes((i * 7 + i // 251) % 256 for i in range(n))


def numbered(first: int, count: int) -> bytes:
    return b"".join(b"%07d\n" % i for i in range(first, first + count))


def check_invariants(log: Log, written: bytes, max_bytes: int) -> None:
    previous = log.segment(log.previous)
    live = log.segment(log.live)
    assert live is not None
    if max_bytes:
        assert len(live) <= max_bytes
        if previous is not None:
            assert len(previous) == max_bytes  # a rotated segment was full, never more
        # every rotated segment held exactly max_bytes: the live one holds the remainder
        assert (len(written) - len(live)) % max_bytes == 0
    else:
        assert previous is None
    retained = (previous or b"") + live
    assert written.endswith(retained), "previous + live is not a suffix of what was written"
    assert len(retained) >= min(len(written), max_bytes or len(written))


def naive_lines(data: bytes) -> list[bytes]:
    if not data:
        return []
    body = data[:-1] if data.endswith(b"\n") else data
    return body.split(b"\n")


def naive_tail(data: bytes, n: int, line_cap: int, budget: int) -> tuple[int, bool]:
    """(start, clipped) of the documented tail: whole lines from the end while they fit in
    `budget`; a line longer than `line_cap` is cut to its last `line_cap` bytes and ends it."""
    end = len(data)
    if end == 0:
        return 0, False
    budget = max(budget, line_cap + 1)
    spans = []
    pos = 0
    for line in naive_lines(data):
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    start, taken = end, 0
    for s, e in reversed(spans):
        if e - s > line_cap:
            if end - (e - line_cap) <= budget:
                return e - line_cap, True
            return start, False
        if end - s > budget:
            return start, False
        start, taken = s, taken + 1
        if taken >= n:
            break
    return start, False


# -- LogWriter: rotation ---------------------------------------------------------------------
def test_write_crossing_the_boundary_is_split_there(log: Log) -> None:
    data = stream(25)
    writer = log.writer(10)
    writer.write(data)
    assert log.segment(log.previous) == data[10:20]
    assert log.segment(log.live) == data[20:25]
    assert (writer.rotations, writer.total, writer.size) == (2, 25, 5)
    writer.close()


def test_segment_exactly_full_rotates_on_the_next_byte(log: Log) -> None:
    writer = log.writer(8)
    writer.write(b"abcdefgh")
    assert log.segment(log.live) == b"abcdefgh"
    assert log.segment(log.previous) is None
    writer.write(b"i")
    assert log.segment(log.previous) == b"abcdefgh"
    assert log.segment(log.live) == b"i"
    writer.close()


def test_rotation_replaces_the_previous_segment(log: Log) -> None:
    writer = log.writer(4)
    for chunk in (b"aaaa", b"bbbb", b"cccc", b"d"):
        writer.write(chunk)
    assert log.segment(log.previous) == b"cccc"
    assert log.segment(log.live) == b"d"
    assert writer.rotations == 3
    writer.close()


def test_unbounded_never_rotates(log: Log) -> None:
    writer = log.writer(0)
    data = stream(300_000)
    for i in range(0, len(data), 7_001):
        writer.write(data[i : i + 7_001])
    writer.close()
    assert log.segment(log.previous) is None
    assert log.segment(log.live) == data
    assert writer.rotations == 0


def test_writer_appends_to_an_existing_segment_and_counts_it(log: Log) -> None:
    log.set(None, b"123456")
    writer = log.writer(8)
    assert writer.size == 6
    writer.write(b"789")
    assert log.segment(log.previous) == b"12345678"
    assert log.segment(log.live) == b"9"
    assert writer.total == 3
    writer.close()


def test_memoryview_and_empty_writes(log: Log) -> None:
    writer = log.writer(5)
    writer.write(b"")
    writer.write(memoryview(b"0123456789abc")[2:])
    writer.close()
    assert log.retained() == b"23456789abc"[-(5 + 1) :]
    assert log.segment(log.live) == b"c"


def test_rotation_survives_a_deleted_live_segment(log: Log) -> None:
    writer = log.writer(4)
    writer.write(b"aaaabb")
    os.unlink(log.live)
    writer.write(b"bbcc")  # the deleted segment fills and rotates: nothing to rename
    writer.close()
    assert writer.lost_bytes == 4
    assert log.segment(log.previous) == b"aaaa"
    assert log.segment(log.live) == b"cc"


@HYPOTHESIS
@given(data=st.data(), max_bytes=st.integers(min_value=1, max_value=64))
def test_contiguity_under_random_write_sizes(
    tmp_path: Path, data: st.DataObject, max_bytes: int
) -> None:
    # writes of up to 3 segments each: every kind of split, without thousands of file creations
    sizes = data.draw(st.lists(st.integers(0, 3 * max_bytes + 2), max_size=20), label="sizes")
    log = fresh(tmp_path)
    content = stream(sum(sizes))
    writer = log.writer(max_bytes)
    pos = 0
    for size in sizes:
        writer.write(content[pos : pos + size])
        pos += size
        check_invariants(log, content[:pos], max_bytes)
        assert writer.total == pos
    writer.close()


def test_read_from_splits_at_the_boundary(log: Log) -> None:
    """Reads through the reused buffer rotate at the exact byte, whatever the chunk."""
    writer = log.writer(1000)
    writer.chunk = 700
    r, w = os.pipe()
    try:
        os.set_blocking(r, False)  # as the shim reads: never waiting on an empty pipe
        data = stream(2500)
        os.write(w, data)
        moved = []
        while sum(moved) < len(data):
            moved.append(writer.read_from(r))
        assert max(moved) <= 700
        check_invariants(log, data, 1000)
        assert log.segment(log.previous) == data[1000:2000]
        assert log.segment(log.live) == data[2000:]
        with pytest.raises(BlockingIOError):
            writer.read_from(r)  # nothing there: nothing written
        os.close(w)
        w = -1
        assert writer.read_from(r) == 0  # end of input
        check_invariants(log, data, 1000)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
        writer.close()


def test_writer_tail_spans_the_boundary(log: Log) -> None:
    writer = log.writer(10)
    data = stream(35)
    writer.write(data)
    assert writer.tail(8) == data[-8:]
    assert writer.tail(100) == data[20:]  # all that is retained
    writer.close()


# -- read_tail -------------------------------------------------------------------------------
def test_tail_with_and_without_trailing_newline(log: Log) -> None:
    log.set(None, b"a\nb\nc\n")
    read = log.tail(2)
    assert (read.data, read.lines(), read.start, read.earlier_lines) == (
        b"b\nc\n",
        ["b", "c"],
        2,
        1,
    )
    assert read.truncated and read.earlier_bytes == 2
    log.set(None, b"a\nb\nc")
    read = log.tail(2)
    assert (read.data, read.lines(), read.start, read.earlier_lines) == (b"b\nc", ["b", "c"], 2, 1)
    read = log.tail(10)
    assert (read.lines(), read.start, read.truncated, read.earlier_lines) == (
        ["a", "b", "c"],
        0,
        False,
        0,
    )


def test_tail_of_empty_lines(log: Log) -> None:
    log.set(None, b"\n")
    read = log.tail(5)
    assert read.data == b"\n" and read.lines() == [""] and not read.truncated
    log.set(None, b"x\n\n\n")
    assert log.tail(2).lines() == ["", ""]
    assert log.tail(3).lines() == ["x", "", ""]


def test_tail_of_an_empty_log(log: Log) -> None:
    log.set(None, b"")
    read = log.tail(10)
    assert (read.data, read.start, read.size, read.earlier_lines) == (b"", 0, 0, 0)
    assert read.lines() == [] and not read.truncated and not read.rotated
    log.set(b"0123\n", b"")  # just rotated: the live segment is empty
    read = log.tail(10)
    assert read.lines() == ["0123"] and read.rotated and read.size == 5


def test_tail_joins_a_line_split_by_rotation(log: Log) -> None:
    log.set(b"one\ntw", b"o\nthree\n")
    read = log.tail(2)
    assert read.lines() == ["two", "three"]
    assert (read.start, read.size, read.earlier_lines, read.rotated) == (4, 14, 1, True)


def test_tail_lines_below_one_means_one(log: Log) -> None:
    log.set(None, b"a\nb\n")
    assert log.tail(0).lines() == ["b"]


def test_line_longer_than_the_cap_is_clipped(log: Log) -> None:
    long = b"x" * 500 + b"END"
    log.set(None, b"first\n" + long + b"\nshort\n")
    read = log.tail(5, line_cap=100)
    assert read.clipped and read.truncated
    assert read.lines() == [long[-100:].decode(), "short"]
    assert read.start == 6 + len(long) - 100
    assert read.earlier_lines == 1  # 'first' lies wholly before the slice
    # a long last line without a newline, and a long first line
    log.set(None, long)
    read = log.tail(1, line_cap=100)
    assert read.clipped and read.data == long[-100:]
    log.set(None, long + b"\nok\n")
    read = log.tail(3, line_cap=100)
    assert read.clipped and read.lines() == [long[-100:].decode(), "ok"]
    # exactly the cap is not clipped
    log.set(None, b"a\n" + b"y" * 100 + b"\n")
    read = log.tail(3, line_cap=100)
    assert not read.clipped and read.lines() == ["a", "y" * 100]


def test_clipping_across_blocks_and_segments(log: Log) -> None:
    """A line longer than the cap spanning several read blocks and the rotation boundary."""
    cap = 3 * logs._BLOCK // 2
    long = stream(5 * logs._BLOCK).replace(b"\n", b"-")
    log.set(b"head\n" + long[:70_000], long[70_000:] + b"\ntail\n")
    read = log.tail(10, line_cap=cap)
    assert read.clipped
    assert read.data == long[-cap:] + b"\ntail\n"
    # the same line exactly as long as the cap is whole
    line = long[:cap]
    log.set(b"head\n" + line[:70_000], line[70_000:] + b"\ntail\n")
    read = log.tail(10, line_cap=cap)
    assert not read.clipped and read.lines()[0] == "head"


def test_a_line_just_over_the_default_cap_is_never_loaded_whole(
    log: Log, monkeypatch: pytest.MonkeyPatch
) -> None:
    over = logs.LINE_CAP + 100  # ends in the same block as its start: the old scan missed it
    log.set(None, b"a\n" * 1000 + b"y" * over + b"\nshort\n")
    sizes: list[int] = []
    real = os.pread

    def pread(fd: int, n: int, offset: int) -> bytes:
        sizes.append(n)
        return real(fd, n, offset)

    monkeypatch.setattr(logs.os, "pread", pread)
    read = log.tail(5)
    assert read.clipped
    assert read.data == b"y" * logs.LINE_CAP + b"\nshort\n"
    assert max(sizes) <= logs.LINE_CAP + len(b"\nshort\n")


def test_budget_stops_at_a_line_boundary(log: Log) -> None:
    body = b"".join(b"%04d" % i + b"z" * 95 + b"\n" for i in range(100))  # 100-byte lines
    log.set(None, body)
    read = log.tail(100, line_cap=200, budget=1050)
    assert not read.clipped and read.truncated
    assert len(read.lines()) == 10 and read.lines()[0].startswith("0090")
    assert read.start == 9000


def test_earlier_lines_counted_only_when_cheap(log: Log) -> None:
    log.set(None, numbered(0, 1000))
    read = log.tail(10)
    assert read.earlier_lines == 990 and read.earlier_bytes == 990 * 8
    read = log.tail(10, count_below=100)
    assert read.earlier_lines is None and read.earlier_bytes == 990 * 8


def test_tail_reads_only_what_it_needs(log: Log, monkeypatch: pytest.MonkeyPatch) -> None:
    log.set(numbered(0, 400_000), numbered(400_000, 400_000))  # 6.4 MB retained
    loaded: list[int] = []
    real = os.pread
    monkeypatch.setattr(logs.os, "pread", lambda fd, n, o: loaded.append(n) or real(fd, n, o))
    read = log.tail(3)
    assert read.lines() == ["0799997", "0799998", "0799999"]
    assert sum(loaded) < 2 * logs._BLOCK
    assert read.earlier_lines is None  # start > count_below: not counted


@HYPOTHESIS
@given(
    content=st.lists(
        st.one_of(
            st.just(b"\n"), st.binary(min_size=1, max_size=40).map(lambda b: b.replace(b"\n", b"."))
        ),
        max_size=80,
    ).map(b"".join),
    chunks=st.lists(st.integers(min_value=1, max_value=50), min_size=1, max_size=10),
    max_bytes=st.integers(min_value=0, max_value=200),
    n=st.integers(min_value=1, max_value=60),
)
def test_tail_matches_a_naive_reference(
    tmp_path: Path, content: bytes, chunks: list[int], max_bytes: int, n: int
) -> None:
    log = fresh(tmp_path)
    writer = log.writer(max_bytes)
    pos, i = 0, 0
    while pos < len(content):
        size = chunks[i % len(chunks)]
        writer.write(content[pos : pos + size])
        pos, i = pos + size, i + 1
    writer.close()
    retained = log.retained()
    assert content.endswith(retained)
    read = log.tail(n)
    assert read.lines() == [x.decode("utf-8", "replace") for x in naive_lines(retained)[-n:]]
    assert read.data == retained[read.start :]
    assert read.size == len(retained)
    assert read.earlier_lines == retained[: read.start].count(b"\n")
    assert read.truncated == (read.start > 0)
    assert not read.clipped
    assert read.rotated == os.path.exists(log.previous)


@HYPOTHESIS
@given(
    lengths=st.lists(st.integers(min_value=0, max_value=120), min_size=1, max_size=40),
    trailing=st.booleans(),
    split=st.floats(min_value=0, max_value=1),
    n=st.integers(min_value=1, max_value=50),
    line_cap=st.integers(min_value=1, max_value=80),
    budget=st.integers(min_value=1, max_value=800),
)
def test_tail_with_cap_and_budget_matches_a_naive_reference(
    tmp_path: Path,
    lengths: list[int],
    trailing: bool,
    split: float,
    n: int,
    line_cap: int,
    budget: int,
) -> None:
    log = fresh(tmp_path)
    content = b"\n".join(stream(k).replace(b"\n", b"#") for k in lengths) + (
        b"\n" if trailing else b""
    )
    cut = int(len(content) * split)
    log.set(content[:cut] or None, content[cut:])
    read = log.tail(n, line_cap=line_cap, budget=budget)
    start, clipped = naive_tail(content, n, line_cap, budget)
    assert (read.start, read.clipped) == (start, clipped)
    assert read.data == content[start:]
    assert len(read.data) <= max(budget, line_cap + 1)


def test_tail_while_rotations_happen(log: Log) -> None:
    """A writer rotating every 4 KiB in another thread; every read is a contiguous slice."""
    writer = log.writer(4096)
    writer.write(numbered(0, 1))
    stop = threading.Event()
    written = [1]

    def write() -> None:
        k = 1
        while not stop.is_set():
            writer.write(numbered(k, 97))
            k += 97
            written[0] = k

    thread = threading.Thread(target=write)
    thread.start()
    reads = rotated = 0
    try:
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline or reads < 50:
            if reads % 3:
                read = log.tail(300)
                data = read.data
                rotated += read.rotated
            else:
                pair = open_pair(log.live, log.previous)
                try:
                    data = pair.read(0, pair.size)
                finally:
                    pair.close()
            reads += 1
            if data:  # starts on a line: segments and writes are whole 8-byte lines
                first = int(data[:7])
                want = numbered(first, len(data) // 8 + 1)[: len(data)]
                assert data == want, "a gap or a repeat in a read"
    finally:
        stop.set()
        thread.join()
        writer.close()
    assert rotated and writer.rotations > 10


# -- open_pair -------------------------------------------------------------------------------
def test_missing_log_raises(log: Log) -> None:
    with pytest.raises(LogMissing):
        log.tail(10)
    with pytest.raises(LogMissing):
        read_page(log.live, log.previous, 0, None)
    with pytest.raises(FileNotFoundError):  # LogMissing is one
        open_pair(log.live, log.previous)


def test_previous_segment_alone_is_read_promptly(log: Log) -> None:
    log.set(b"a\nb\n", None)  # the live segment deleted by hand after a rotation
    began = time.monotonic()
    read = log.tail(10)
    assert time.monotonic() - began < 1.0
    assert read.lines() == ["a", "b"] and read.rotated


def test_open_pair_retries_when_a_rotation_comes_between_the_opens(
    log: Log, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = log.writer(8)
    writer.write(b"0000000\n1111111\n2222")  # previous: 1111111\n  live: 2222
    opened: list[str] = []
    real = logs._open_segment

    def open_segment(path: str):  # type: ignore[no-untyped-def]
        segment = real(path)
        opened.append(path)
        if len(opened) == 1:  # between the live open and the previous open
            writer.write(b"3333\n")  # fills the live segment ...
            writer.write(b"4")  # ... and rotates it
        return segment

    monkeypatch.setattr(logs, "_open_segment", open_segment)
    pair = open_pair(log.live, log.previous)
    try:
        data = pair.read(0, pair.size)
    finally:
        pair.close()
    writer.close()
    assert len(opened) == 4  # the first pair was refused and opened again
    assert data == b"22223333\n4" == log.retained()
    assert (pair.previous_size, pair.size) == (8, 10)


def test_open_pair_waits_out_a_rotation_between_rename_and_reopen(
    log: Log, monkeypatch: pytest.MonkeyPatch
) -> None:
    log.set(b"old\n", None)  # renamed away; the new live segment is not there yet
    real = logs._open_segment
    calls = []

    def open_segment(path: str):  # type: ignore[no-untyped-def]
        calls.append(path)
        if len(calls) == 3:  # the writer reopens during our first back-off
            Path(log.live).write_bytes(b"new\n")
        return real(path)

    monkeypatch.setattr(logs, "_open_segment", open_segment)
    read = log.tail(10)
    assert read.lines() == ["old", "new"]


# -- read_page -------------------------------------------------------------------------------
def test_page_offset_and_limit(log: Log) -> None:
    log.set(b"l0\nl1\nl", b"2\nl3\nl4\n")
    page = read_page(log.live, log.previous, 0, None)
    assert (page.lines, page.total_lines, page.rotated) == (["l0", "l1", "l2", "l3", "l4"], 5, True)
    page = read_page(log.live, log.previous, 1, 2)
    assert (page.lines, page.offset, page.total_lines) == (["l1", "l2"], 1, 5)
    assert read_page(log.live, log.previous, 3, None).lines == ["l3", "l4"]
    assert read_page(log.live, log.previous, 4, 10).lines == ["l4"]
    assert read_page(log.live, log.previous, 5, 10).lines == []
    assert read_page(log.live, log.previous, 99, None).total_lines == 5
    assert read_page(log.live, log.previous, 0, 0).lines == []
    assert read_page(log.live, log.previous, -3, 1).lines == ["l0"]


def test_page_without_trailing_newline_and_empty(log: Log) -> None:
    log.set(None, b"a\n\nb")
    page = read_page(log.live, log.previous, 0, None)
    assert (page.lines, page.total_lines) == (["a", "", "b"], 3)
    log.set(None, b"")
    page = read_page(log.live, log.previous, 0, None)
    assert (page.lines, page.total_lines, page.rotated) == ([], 0, False)


def test_page_clips_only_the_lines_it_returns(log: Log) -> None:
    long = stream(3 * logs._BLOCK).replace(b"\n", b"-")
    log.set(None, b"short\n" + long + b"\nend")
    page = read_page(log.live, log.previous, 0, 1, line_cap=50)
    assert page.lines == ["short"] and not page.clipped and page.total_lines == 3
    page = read_page(log.live, log.previous, 1, 1, line_cap=50)
    assert page.lines == [long[-50:].decode("utf-8", "replace")] and page.clipped
    page = read_page(log.live, log.previous, 2, None, line_cap=50)
    assert page.lines == ["end"] and not page.clipped
    log.set(None, b"ok\n" + long)  # a long last line without a newline
    page = read_page(log.live, log.previous, 1, None, line_cap=50)
    assert page.lines == [long[-50:].decode("utf-8", "replace")] and page.clipped


@HYPOTHESIS
@given(
    content=st.lists(
        st.one_of(st.just(b"\n"), st.sampled_from([b"ab", b"c", b"xyz" * 30])), max_size=60
    ).map(b"".join),
    cut=st.floats(min_value=0, max_value=1),
    offset=st.integers(min_value=0, max_value=70),
    limit=st.one_of(st.none(), st.integers(min_value=0, max_value=70)),
    line_cap=st.integers(min_value=1, max_value=100),
)
def test_page_matches_a_naive_reference(
    tmp_path: Path, content: bytes, cut: float, offset: int, limit: int | None, line_cap: int
) -> None:
    log = fresh(tmp_path)
    at = int(len(content) * cut)
    log.set(content[:at] or None, content[at:])
    lines = naive_lines(content)
    want = lines[offset : None if limit is None else offset + limit]
    page = read_page(log.live, log.previous, offset, limit, line_cap=line_cap)
    assert page.total_lines == len(lines)
    assert page.lines == [x[-line_cap:].decode() for x in want]
    assert page.clipped == any(len(x) > line_cap for x in want)
