"""`logs --grep`, `--since` and `--timestamps` of a terminal job read the rows its terminal
shows (issue 23, item F), not its bytes' lines: an escape, a width probe or a line the
program overwrote in place is never matched, a row that scrolled into the scrollback is,
and a row's time is the time of the bytes that made it final."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from .conftest import Cli, until
from .test_log_search import iso
from .test_tty_text import STATUS, VIM_LIKE

# On a 10-row terminal: 40 rows that scroll off, a line overwritten in place (the bytes'
# line is `error: failok: fine`), then a vim-like screen (alternate screen, a `▽` probe).
MIXED = (
    "for i in $(seq 1 40); do printf 'row %02d\\n' $i; done; "
    "printf 'error: fail\\033[1G\\033[Kok: fine\\n'; " + VIM_LIKE
)


def _mixed(cli: Cli) -> None:
    cli.ok("start", "--tty", "--cols", "80", "--rows", "24", "--", MIXED)
    assert cli("wait", "j1", "--timeout-ms", "60000").code == 0


def test_grep_of_a_terminal_job_matches_its_rows_never_its_escapes(cli: Cli):
    _mixed(cli)
    assert cli.ok("logs", "j1", "--grep", "error").out == ""  # overwritten: not on the screen
    for hidden in ("▽", r"\[K", "1049", "~ +~", r"\x1b"):
        assert cli.ok("logs", "j1", "--grep", hidden).out == "", hidden
    found = cli.ok("logs", "j1", "--grep", "^ok: fine$", "--context", "1")
    assert found.out.splitlines() == ["row 40", "ok: fine", "$ vim notes.txt"], found.out
    assert "1 matching line" in found.err
    # rows that scrolled into the scrollback long ago are still found
    early = cli.ok("logs", "j1", "--grep", "^row 0[1-3]$").out.splitlines()
    assert early == ["row 01", "row 02", "row 03"]
    status = cli.ok("logs", "j1", "--grep", r"notes\.txt.*All$", "--json").json()
    assert [" ".join(x["text"].split()) for x in status["lines"]] == [STATUS], status
    line = status["lines"][0]
    assert line["match"] is True and isinstance(line["atMs"], int)
    assert isinstance(line["offset"], int) and status["matches"] == 1 and status["cut"] == 0
    assert status["rendered"] is True


def test_since_timestamps_and_grep_of_a_terminal_job_date_its_rows(cli: Cli):
    script = (
        "printf 'early\\033[1G\\033[Kfirst\\n'; "
        "while [ ! -e go ]; do sleep 0.05; done; "
        "printf 'late\\033[1G\\033[Klater\\n'; sleep 300"
    )
    cli.ok("start", "--tty", "--", script)
    assert until(lambda: "first" in cli.ok("logs", "j1").out)
    time.sleep(0.4)  # the time index keeps one entry per 100 ms of output
    between = int(time.time() * 1000)
    time.sleep(0.4)
    (Path(cli.cwd) / "go").touch()
    assert until(lambda: "later" in cli.ok("logs", "j1").out)

    since = cli.ok("logs", "j1", "--since", iso(between))
    assert since.out == "later\n", since
    both = cli.ok("logs", "j1", "--since", "1h").out
    assert both == "first\nlater\n", both
    stamped = cli.ok("logs", "j1", "--timestamps").out.splitlines()
    assert [s.split("  ", 1)[1] for s in stamped] == ["first", "later"], stamped
    assert all(re.match(r"\d\d:\d\d:\d\d\.\d{3}  ", s) for s in stamped), stamped
    as_json = cli.ok("logs", "j1", "--timestamps", "--json").json()
    assert as_json["logs"] == "first\nlater\n" and as_json["rendered"] is True
    first, later = as_json["times"]
    assert first < between < later, (first, between, later)

    grepped = cli.ok("logs", "j1", "--grep", "first|later|early|late", "--json").json()
    assert [x["text"] for x in grepped["lines"]] == ["first", "later"]
    assert grepped["lines"][0]["atMs"] < between < grepped["lines"][1]["atMs"]
    recent = cli.ok("logs", "j1", "--grep", "first|later", "--since", iso(between))
    assert recent.out == "later\n", recent
    dated = cli.ok("logs", "j1", "--grep", "later", "--timestamps").out
    assert re.match(r"\d\d:\d\d:\d\d\.\d{3}  later\n\Z", dated), dated
    cli.ok("kill", "j1")


def test_grep_of_a_terminal_job_goes_through_a_rotation(cli: Cli):
    with open(os.environ["JOBS_TUI_CONFIG"], "a") as fh:
        fh.write("max_log_bytes = 4000\n")
    # 11 bytes a line: the first ~360 lines rotate away, the rest are in two segments
    script = "for i in $(seq 1 1000); do printf 'n=%04d\\033[K\\n' $i; done"
    cli.ok("start", "--tty", "--", script)
    assert cli("wait", "j1", "--timeout-ms", "60000").code == 0
    assert any(Path(cli.registry_dir).glob("j1.log.1"))  # it rotated
    found = cli.ok("logs", "j1", "--grep", "^n=(000[1-9]|040[0-9]|1000)$").out.splitlines()
    assert found == [f"n={n:04d}" for n in range(400, 410)] + ["n=1000"], found
    assert cli.ok("logs", "j1", "--grep", r"\[K").out == ""


def test_follow_since_of_a_terminal_job_starts_with_the_rows_written_since(cli: Cli):
    script = (
        "printf 'old\\033[1G\\033[Kolder\\n'; while [ ! -e go ]; do sleep 0.05; done; "
        "printf 'new\\033[1G\\033[Knewer\\n'"
    )
    cli.ok("start", "--tty", "--", script)
    assert until(lambda: "older" in cli.ok("logs", "j1").out)
    time.sleep(0.4)
    between = int(time.time() * 1000)
    time.sleep(0.4)
    (Path(cli.cwd) / "go").touch()
    assert cli("wait", "j1", "--timeout-ms", "30000").code == 0
    out = cli.ok("logs", "j1", "--follow", "--since", iso(between)).out.splitlines()
    assert out[:-1] == ["newer"] and out[-1].startswith("✓ j1"), out
