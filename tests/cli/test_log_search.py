"""Issue 11 on the command line: `logs --since`, `--timestamps`, `--grep [--context]`,
across a log rotation, with real jobs and the shim's time index."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from .conftest import Cli, until

# 150 lines of 9 bytes ("line 001\n"): with max_log_bytes 1000 the log rotates once, after
# line 111, and both segments are retained. The second half waits for a file `go`.
TWO_PARTS = (
    "for i in $(seq 1 80); do printf 'line %03d\\n' $i; done; "
    "while [ ! -e go ]; do sleep 0.05; done; "
    "for i in $(seq 81 150); do printf 'line %03d\\n' $i; done; sleep 300"
)


def small_logs() -> None:
    with open(os.environ["JOBS_TUI_CONFIG"], "a") as fh:
        fh.write("max_log_bytes = 1000\n")


def iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def test_since_and_timestamps_across_a_rotation(cli: Cli):
    small_logs()
    cli.ok("start", "--", TWO_PARTS)
    assert until(lambda: "line 080" in cli.ok("logs", "j1").out)
    time.sleep(0.4)  # the time index keeps one entry per 100 ms of output
    between = int(time.time() * 1000)
    time.sleep(0.4)
    (Path(cli.cwd) / "go").touch()
    assert until(lambda: "line 150" in cli.ok("logs", "j1").out)
    assert any(Path(cli.registry_dir).glob("j1.log.*"))  # it rotated
    since = cli.ok("logs", "j1", "--since", iso(between), "--lines", "2000").out.splitlines()
    assert since[0] == "line 081" and since[-1] == "line 150" and len(since) == 70, since[:3]
    recent = cli.ok("logs", "j1", "--since", "1h", "--lines", "2000").out
    assert "line 150" in recent
    stamped = cli.ok("logs", "j1", "--timestamps", "--lines", "3").out.splitlines()
    assert stamped[0].startswith("… ") and "earlier lines" in stamped[0]
    stamped = stamped[1:]
    assert len(stamped) == 3 and stamped[-1].endswith("  line 150")
    assert re.match(r"\d\d:\d\d:\d\d\.\d{3}  line 148$", stamped[0]), stamped
    as_json = cli.ok("logs", "j1", "--timestamps", "--lines", "3", "--json").json()
    assert len(as_json["times"]) == 3
    assert all(abs(t - between) < 60_000 for t in as_json["times"])


def test_grep_across_a_rotation_with_context_and_a_count(cli: Cli):
    small_logs()
    cli.ok("start", "--", TWO_PARTS)
    (Path(cli.cwd) / "go").touch()
    assert until(lambda: "line 150" in cli.ok("logs", "j1").out)
    found = cli.ok("logs", "j1", "--grep", r"line 1[01][0-9]$")
    assert found.out.splitlines() == [f"line {n:03d}" for n in range(100, 120)]
    assert "20 matching lines" in found.err
    around = cli.ok("logs", "j1", "--grep", "line 05[05]", "--context", "1").out.splitlines()
    assert around == ["line 049", "line 050", "line 051", "--", "line 054", "line 055", "line 056"]
    as_json = cli.ok("logs", "j1", "--grep", "line 11[0-2]", "--json").json()
    assert as_json["matches"] == 3 and as_json["cut"] == 0
    assert [x["text"] for x in as_json["lines"]] == ["line 110", "line 111", "line 112"]
    assert all(x["match"] for x in as_json["lines"])
    offsets = [x["offset"] for x in as_json["lines"]]
    assert offsets == [109 * 9, 110 * 9, 111 * 9]  # absolute: they survive the rotation


def test_grep_says_how_many_matches_were_cut(cli: Cli):
    cli.ok("start", "--", "seq 1 5000")
    assert cli("wait", "j1").code == 0
    result = cli.ok("logs", "j1", "--grep", "^[0-9]+$", "--json").json()
    assert result["matches"] == 5000 and result["cut"] > 0
    assert len(result["lines"]) + result["cut"] == 5000
    human = cli.ok("logs", "j1", "--grep", "^[0-9]+$")
    assert "not shown" in human.err


def test_bad_grep_and_bad_combinations_name_the_flag(cli: Cli):
    cli.ok("start", "--", "echo hi")
    bad = cli("logs", "j1", "--grep", "(", "--json")
    assert bad.code == 2 and bad.json()["field"] == "--grep", bad
    for words, flag in (
        (("--context", "2"), "--context"),
        (("--grep", "x", "--follow"), "--grep"),
        (("--grep", "x", "--lines", "5"), "--grep"),
        (("--since", "yesterday"), "--since"),
        (("--timestamps", "--offset", "0"), "--timestamps"),
    ):
        result = cli("logs", "j1", *words)
        assert result.code == 2 and flag in result.err, (words, result)
