"""The line scanner `wait --until` runs: lines in pieces, gaps from rotation, long lines."""

from __future__ import annotations

import re

import pytest

from jobs_tui.engine.records.results import InvalidArgument
from jobs_tui.engine.session.waiting import (
    LineMatch,
    LineScanner,
    WaitResult,
    check_ids,
    compile_until,
)


def scanner(pattern: str, start: int = 0) -> LineScanner:
    return LineScanner(re.compile(pattern), start, "j1")


def test_a_line_split_across_reads_matches_once_whole_at_its_first_byte():
    scan = scanner(r"ready on :\d+")
    assert scan.feed(b"booting\nrea", 100) is None
    assert scan.feed(b"dy on :51", 111) is None
    found = scan.feed(b"73\nmore\n", 120)
    assert found == LineMatch("j1", "ready on :5173", 108)


def test_only_whole_lines_match_while_more_may_come_and_the_last_piece_at_the_end():
    scan = scanner(r"^done$")
    assert scan.feed(b"done", 0) is None  # "done" may become "done: 3 failed"
    assert scan.finish() == LineMatch("j1", "done", 0)


def test_the_line_is_sanitized_before_it_is_matched_and_returned():
    scan = scanner(r"ready on :5173$")
    found = scan.feed(b"\x1b[32mready\x1b[0m on :5173\r\n", 0)
    assert found == LineMatch("j1", "ready on :5173", 0)


def test_bytes_rotated_away_unread_end_the_line_in_progress_there():
    scan = scanner(r"^tail-piece")
    assert scan.feed(b"head-piece", 0) is None
    found = scan.feed(b"tail-piece\n", 5000)  # 4990 bytes rotated away before this read
    assert found == LineMatch("j1", "tail-piece", 5000)


def test_a_match_stops_the_scan_and_what_follows_is_kept_for_the_next_feed():
    scan = scanner(r"^x\d$")
    assert scan.feed(b"x1\nx2\n", 0) == LineMatch("j1", "x1", 0)
    assert scan.feed(b"", 6) == LineMatch("j1", "x2", 3)


def test_a_line_longer_than_the_cap_is_matched_on_its_last_mib():
    from jobs_tui.engine.logs.segments import LINE_CAP

    scan = scanner(r"END$")
    for i in range(3):
        assert scan.feed(b"a" * LINE_CAP, i * LINE_CAP) is None
    found = scan.feed(b"END\n", 3 * LINE_CAP)
    assert found is not None and found.line.endswith("END") and found.offset == 0


def test_bad_until_and_ids_are_invalid_arguments_naming_the_field():
    with pytest.raises(InvalidArgument) as bad:
        compile_until("ready (on")
    assert bad.value.field == "until" and "until" in str(bad.value)
    for ids in ([], "j1", ["j1", "x y"], ["j1"] * 101):
        with pytest.raises(InvalidArgument) as bad:
            check_ids(ids)
        assert bad.value.field == "ids"
    assert check_ids(["j2", "j1", "j2"]) == ["j2", "j1"]


def test_wait_result_says_timed_out_only_for_a_timeout():
    assert WaitResult([], "timeout", None).timed_out
    assert not WaitResult([], "finished", None).timed_out
    assert not WaitResult([], "match", LineMatch("j1", "x", 0)).timed_out
