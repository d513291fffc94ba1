"""A closed stdout ends a verb quietly, as other Unix tools do: no traceback, exit 141.

Real shell pipelines: `| head -1` and `| grep -m1 ready`, the way agents wait for a
ready line.
"""

from __future__ import annotations

import shlex
import subprocess
import time

from .conftest import ENTRY, Cli

JOBS_TUI = " ".join(shlex.quote(word) for word in ENTRY)


def pipeline(cli: Cli, script: str, timeout: float = 30) -> tuple[list[int], str, float]:
    """Run `script` (with $JT the entry point) in bash; (PIPESTATUS, stderr, seconds)."""
    began = time.monotonic()
    done = subprocess.run(
        ["bash", "-c", f'{script}; echo "STATUS ${{PIPESTATUS[*]}}" >&2'],
        capture_output=True,
        text=True,
        env=dict(cli.env(), JT=JOBS_TUI),
        cwd=cli.cwd,
        timeout=timeout,
    )
    took = time.monotonic() - began
    status_line = [x for x in done.stderr.splitlines() if x.startswith("STATUS ")][-1]
    codes = [int(c) for c in status_line.split()[1:]]
    return codes, done.stderr, took


def test_a_long_tail_into_head_ends_quietly(cli: Cli):
    cli.ok("start", "--", "for i in $(seq 1 2000); do printf '%0100d\\n' $i; done")
    assert cli("wait", "j1").code == 0
    codes, err, _ = pipeline(cli, "$JT logs j1 --lines 2000 | head -1 > /dev/null")
    assert "Traceback" not in err and "Error" not in err
    assert codes == [141, 0]
    page = "$JT logs j1 --offset 0 --limit 2000 --json | head -c 10 >/dev/null"
    codes, err, _ = pipeline(cli, page)
    assert "Traceback" not in err and codes == [141, 0]


def test_follow_into_grep_m1_returns_when_grep_does(cli: Cli):
    cli.ok("start", "--", "echo booting; sleep 0.5; echo ready; sleep 60")
    codes, err, took = pipeline(cli, "$JT logs j1 --follow | grep -m1 ready")
    assert "Traceback" not in err
    assert codes == [141, 0] and took < 10  # not when the job ends, a minute later
    assert cli.ok("status", "j1").out.startswith("▸ j1")  # the job is not touched


def test_follow_when_the_line_is_already_in_the_tail(cli: Cli):
    cli.ok("start", "--", "echo ready; sleep 60")
    time.sleep(0.5)
    codes, err, took = pipeline(cli, "$JT logs j1 --follow | grep -m1 ready >/dev/null")
    assert "Traceback" not in err and codes == [141, 0] and took < 10


def test_exec_and_poll_into_head(cli: Cli):
    """At most 32 KiB per call: it may all fit in the pipe (0), or meet a closed one (141)."""
    codes, err, _ = pipeline(cli, "$JT exec -- 'seq 1 30000' | head -1 >/dev/null")
    assert "Traceback" not in err and codes[0] in (0, 141)
    cli.ok("start", "--", "seq 1 30000")
    assert cli("wait", "j2").code == 0
    codes, err, _ = pipeline(cli, "$JT poll j2 | head -1 >/dev/null")
    assert "Traceback" not in err and codes[0] in (0, 141)


def test_a_stdout_closed_before_the_start_is_a_reader_that_left(cli: Cli):
    """`jobs-tui start … 1>&-`: Python has no sys.stdout at all; the verb still does its
    work and ends as on a broken pipe (141), its message on stderr, never a traceback."""
    codes, err, _ = pipeline(cli, "$JT start --json -- true 1>&-")
    assert "Traceback" not in err and codes == [141], err
    codes, err, _ = pipeline(cli, "$JT list 1>&- 2>&-")
    assert codes == [141]
    codes, err, _ = pipeline(cli, "$JT logs j1 1>&-")
    assert "Traceback" not in err and codes == [141], err
    assert [j["id"] for j in cli.ok("list", "--json").json()["jobs"]] == ["j1"]
