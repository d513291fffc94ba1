"""The followed log equals a fresh open of the same bytes, for any split of them into reads.

`LineAssembler` is the pure line model the log pane uses; `split_lines` is what a fresh
open (`JobManager.logs`) shows. The property runs over random chunkings with CR progress
rewrites, SGR colours, escapes cut in two and UTF-8 characters cut between reads.
"""

from __future__ import annotations

import itertools
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobs_tui.engine.logs.follower import LogFollower
from jobs_tui.engine.logs.segments import read_tail
from jobs_tui.engine.session.reading import split_lines
from jobs_tui.screens.log.follow import Follower
from jobs_tui.screens.log.lines import LineAssembler, visible

PIECES = [
    b"\n",
    b"\r",
    b"\r\n",
    b"abc",
    b"def",
    b" ",
    b"\t",
    b">>> ",
    b"17%",
    b"\x1b[31m",
    b"\x1b[0m",
    b"\x1b[",
    b"\x1b]0;title\x07",
    b"\x1b",
    "é".encode(),
    "日本".encode(),
    "😀".encode(),
    b"\xff",
    b"\xe2\x82",
    "\u202e".encode(),
    b"\x07",
]

logs = st.lists(st.sampled_from(PIECES), max_size=40).map(b"".join)


def fresh(data: bytes) -> list[str]:
    """What a fresh open of a log holding `data` shows, line for line."""
    lines, partial = split_lines(data, keep_sgr=True)
    return visible(lines, partial)


def with_partial(lines: list[str], partial: str) -> list[str]:
    return [*lines, partial] if partial else lines


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(len(data), c) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


@settings(max_examples=400, deadline=None)
@given(logs, st.lists(st.integers(min_value=0, max_value=400), max_size=30))
def test_any_split_shows_what_a_fresh_open_shows(data: bytes, cuts: list[int]):
    model = LineAssembler()
    shown: list[str] = []
    seen = b""
    for piece in chunked(data, cuts):
        shown += model.feed(piece)
        seen += piece
        # after every read, not only at the end
        assert with_partial(shown, model.partial) == fresh(seen)
    assert with_partial(shown, model.partial) == fresh(data)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(logs, st.lists(st.integers(min_value=0, max_value=400), max_size=12), logs)
def test_a_follower_opened_mid_line_joins_what_follows(
    tmp_path_factory, before: bytes, cuts: list[int], after: bytes
):
    """Open (tail read + follower from its resume point) at any moment, then follow."""
    path = os.path.join(tmp_path_factory.mktemp("log"), "j1.log")
    with open(path, "wb") as f:
        f.write(before)
    tail = read_tail(path, path + ".1", 2000)
    lines, partial = split_lines(tail.data, keep_sgr=True)
    shown = lines[:-1] if partial else lines
    follower = Follower(LogFollower("j1", path, path + ".1", tail.position - partial), partial)
    batch = follower.poll()
    shown += batch.lines
    for piece in chunked(after, cuts):
        with open(path, "ab") as f:
            f.write(piece)
        batch = follower.poll()
        shown += batch.lines
    assert with_partial(shown, batch.partial) == fresh(before + after)


def test_split_lines_names_the_unfinished_line():
    assert split_lines(b"a\nb\n") == (["a", "b"], 0)
    assert split_lines(b"a\nabc") == (["a", "abc"], 3)
    # a partial that sanitizes to nothing is still the last entry, so callers can drop it
    assert split_lines(b"a\n\x1b[2J") == (["a", ""], 4)
    assert split_lines(b"") == ([], 0)
    assert split_lines(b"10%\r20%\r") == (["20%"], 8)


def test_cr_progress_and_a_prompt_in_pieces():
    model = LineAssembler()
    assert model.feed(b"10%\r") == [] and model.partial == "10%"
    assert model.feed(b"17%\r") == [] and model.partial == "17%"
    assert model.feed(b"done\nnext") == ["done"] and model.partial == "next"
    assert model.feed("\xe6\x97".encode("latin-1")) == [] and model.partial == "next\ufffd"
    assert model.feed(b"\xa5\n") == ["next日"] and model.partial == ""


def test_an_endless_line_keeps_its_last_bytes_as_a_fresh_open_does():
    model = LineAssembler(cap=8)
    model.feed(b"0123456789")
    assert model.partial == "23456789"
    assert model.feed(b"ab\n") == ["456789ab"]


def test_a_rotation_gap_is_counted_and_never_splices_two_lines(tmp_path):
    """Fewer bytes than a read are left after a rotation passed the pane: the cut line's
    rest is dropped and counted with the gap, so `skipped` is the header's exact note."""
    from jobs_tui.engine.shim.logwriter import LogWriter

    live = str(tmp_path / "j1.log")
    writer = LogWriter(live, live + ".1", 100)
    follower = Follower(LogFollower("j1", live, live + ".1", 0))
    writer.write(b"one\nhalf of tw")
    batch = follower.poll()
    assert (batch.lines, batch.partial, batch.skipped) == (["one"], "half of tw", 0)
    writer.write(b"o\n" + b"a" * 250 + b"\n" + b"b" * 30 + b"\nc")  # 299 bytes in all
    # rotated at 100 and 200: the log keeps bytes 100.. (inside the line of a's, which
    # ends at 266); the pane had read up to 14
    batch = follower.poll()
    assert batch.lines == ["b" * 30] and batch.partial == "c"
    assert batch.skipped == (100 - 14) + (267 - 100)
    assert not any(line.startswith("half") or "a" in line for line in batch.lines)
