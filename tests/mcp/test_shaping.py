"""Output a model can use: sanitized, progress bars collapsed, head and tail under a limit."""

from __future__ import annotations

import re

from jobs_tui.app.mcp.shaping import job_text, shape, shape_details

MARKER = re.compile(r"… (\d+) lines / (\d+) bytes omitted …")


def test_short_output_is_kept_whole_but_sanitized():
    raw = "\x1b[31mred\x1b[0m ok\n\x1b]0;title\x07next\ndownloading 10%\rdownloading 100%\n"
    shaped = shape(raw, 16_384)
    assert shaped.text == "red ok\nnext\ndownloading 100%\n"
    assert not shaped.cut


def test_long_output_keeps_head_and_tail_with_an_exact_marker():
    lines = [f"line {n:05d}" for n in range(20_000)]
    raw = "\n".join(lines) + "\n"
    shaped = shape(raw, 4096)
    data = shaped.text.encode()
    assert len(data) <= 4096
    head, marker, tail = re.split(r"(… \d+ lines / \d+ bytes omitted …)\n", shaped.text)
    omitted_lines, omitted_bytes = map(int, MARKER.search(marker).groups())
    kept_head = head.splitlines()
    kept_tail = tail.splitlines()
    assert kept_head[0] == "line 00000" and kept_tail[-1] == "line 19999"
    assert len(kept_head) + omitted_lines + len(kept_tail) == len(lines)  # whole lines only
    assert len(head.encode()) + omitted_bytes + len(tail.encode()) == len(raw.encode())
    assert len(tail) > len(head)  # the end (where errors are) gets most of the room
    assert (shaped.omitted_lines, shaped.omitted_bytes) == (omitted_lines, omitted_bytes)


def test_one_huge_line_is_cut_inside_without_breaking_a_character():
    raw = "é" * 50_000  # two bytes each, no newline at all
    shaped = shape(raw, 2048)
    assert len(shaped.text.encode()) <= 2048
    assert "\ufffd" not in shaped.text
    assert MARKER.search(shaped.text)
    assert shaped.omitted_lines == 0 and shaped.omitted_bytes > 90_000


def test_logs_details_are_bounded_and_say_where_the_full_log_is():
    job = {
        "id": "j3",
        "label": "evil \x1b[2J label",
        "command": "x",
        "cwd": "/",
        "pid": 1,
        "status": "failed",
        "exitCode": 2,
        "signal": None,
        "startedAt": 1_000,
        "finishedAt": 4_100,
        "logPath": "/reg/j3.log",
        "detached": False,
        "wake": False,
        "sessionId": "mcp-1",
        "seen": False,
        "lastLine": "",
        "statusPath": None,
        "startToken": None,
    }
    details = {"action": "logs", "job": job, "logs": "x\n" * 40_000, "truncated": False}
    shaped = shape_details(details, 2048)
    assert shaped["omittedLines"] > 0 and shaped["logFile"] == "/reg/j3.log"
    text = job_text("logs", shaped)
    assert "✗ j3 evil label · exit 2 · 3.1s" in text
    assert "\x1b" not in text
    assert "full log: /reg/j3.log" in text
    assert MARKER.search(text)
