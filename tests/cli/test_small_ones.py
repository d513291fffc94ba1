"""Issue 8, item 17 (the command line's part): options anywhere, flags named as typed,
exact lifetimes, refused size flags, rotation said, aligned wide labels, the verb's usage."""

from __future__ import annotations

import os
import re
import unicodedata

from .conftest import Cli


def cells(text: str) -> int:
    """Terminal columns of `text`: wide and fullwidth characters take two."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def test_send_takes_options_before_or_after_the_text(cli: Cli):
    cli.ok("start", "--stdin", "--", "cat")
    assert cli.ok("send", "j1", "--no-newline", "one").out.endswith("· sent 3\n")
    assert cli.ok("send", "--no-newline", "j1", "two").out.endswith("· sent 3\n")
    assert cli.ok("send", "j1", "three", "--no-newline").out.endswith("· sent 5\n")
    cli.ok("send", "j1", "--eof")
    assert cli("wait", "j1").code == 0
    assert cli.ok("logs", "j1").out == "onetwothree\n"


def test_a_missing_cwd_is_a_usage_error_naming_the_flag_for_start_and_exec(cli: Cli):
    for verb in ("start", "exec"):
        result = cli(verb, "--cwd", "/no/such/dir", "--", "true")
        assert result.code == 2, (verb, result)
        assert "--cwd" in result.err and "/no/such/dir" in result.err
        as_json = cli(verb, "--json", "--cwd", "/no/such/dir", "--", "true")
        assert as_json.code == 2 and as_json.json()["field"] == "--cwd"
    assert cli.ok("list", "--json").json()["jobs"] == []  # nothing started


def test_errors_name_the_flag_the_user_typed(cli: Cli):
    cases = [
        ("exec", "--timeout-ms", "0", "--", "true"),
        ("start", "--timeout-ms", "0", "--", "true"),
        ("wait", "j1", "--timeout-ms", "700000"),
        ("logs", "j1", "--lines", "0"),
        ("exec", "--yield-ms", "40000", "--", "true"),
        ("poll", "j1", "--wait-ms", "-1"),
    ]
    cli.ok("start", "--", "true")
    for words in cases:
        result = cli(*words)
        flag = next(w for w in words if w.startswith("--"))
        assert result.code == 2, (words, result)
        assert flag in result.err, (words, result.err)
        for internal in ("timeout_seconds", "timeoutMs", "yield_time_ms", "lines "):
            assert internal not in result.err.replace(flag, ""), (words, result.err)


def test_a_lifetime_of_one_and_a_half_seconds_is_said_as_such(cli: Cli):
    result = cli("exec", "--json", "--timeout-ms", "1500", "--yield-ms", "8000", "--", "sleep 30")
    assert result.code == 143
    failure = result.json()["failure"]
    assert "1.5 s" in failure and "2 s" not in failure


def test_cols_and_rows_need_tty(cli: Cli):
    for flag in ("--cols", "--rows"):
        result = cli("start", flag, "100", "--", "true")
        assert result.code == 2 and flag in result.err and "--tty" in result.err
    assert cli.ok("list", "--json").json()["jobs"] == []
    cli.ok("start", "--tty", "--cols", "100", "--", "true")


def test_poll_after_a_rotation_says_where_it_starts(cli: Cli):
    with open(os.environ["JOBS_TUI_CONFIG"], "a") as fh:
        fh.write("max_log_bytes = 1000\n")
    cli.ok("start", "--", 'for i in $(seq 1 300); do echo "line number $i"; done')
    assert cli("wait", "j1").code == 0
    result = cli.ok("poll", "j1")
    assert result.out.endswith("line number 300\n")
    note = result.err.splitlines()[0]  # above the output, not after it
    assert re.search(r"\d+ bytes rotated out of the log", note) and "mid-line" in note
    as_json = cli.ok("poll", "j1", "--json").json()
    assert as_json["output"] == ""  # read once


def test_list_aligns_rows_with_wide_labels(cli: Cli):
    labels = ["plain", "测试 build", "🚀 deploy", "ｆｕｌｌ width", "e\u0301 combining"]
    for label in labels:
        cli.ok("start", "--label", label, "--", "sleep 30")
    rows = cli.ok("list").out.splitlines()[1:]
    assert len(rows) == len(labels)
    widths = {cells(row.removesuffix(row.split()[-1])) for row in rows}
    assert len(widths) == 1, rows  # the duration column starts at one column for all


def test_a_verbs_bad_option_prints_that_verbs_usage(cli: Cli):
    result = cli("list", "--bogus")
    assert result.code == 2
    assert result.err.startswith("usage: jobs-tui list") and "--bogus" in result.err
    result = cli("wait", "j1", "--nope")
    assert result.err.startswith("usage: jobs-tui wait")


def test_a_shortened_option_is_refused_not_taken_for_a_longer_one(cli: Cli):
    """`--timeout 5` was read as `--timeout-ms 5` (argparse's prefix matching): a wait of
    5 ms that an agent meant as 5 seconds. A shortened option is a usage error that says
    which option was meant, and nothing runs."""
    cli.ok("start", "--", "sleep 30")
    cases = [
        (("wait", "j1", "--timeout", "5"), "--timeout-ms"),
        (("wait", "j1", "--timeout=5"), "--timeout-ms"),
        (("exec", "--yield", "500", "--", "true"), "--yield-ms"),
        (("start", "--time", "9", "--", "true"), "--timeout-ms"),
        (("logs", "j1", "--line", "3"), "--lines"),
        (("--registry", "/tmp", "list"), "--registry-dir"),
    ]
    for words, meant in cases:
        result = cli(*words)
        typed = next(w for w in words if w.startswith("--")).split("=")[0]
        assert result.code == 2, (words, result)
        assert f"{typed} is not an option" in result.err, (words, result.err)
        assert f"did you mean {meant}" in result.err, (words, result.err)
    jobs = cli.ok("list", "--json").json()["jobs"]
    assert [job["id"] for job in jobs] == ["j1"]  # the refused start and exec ran nothing
