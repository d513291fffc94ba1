"""`exec` without an event loop (engine/session/quickexec.py): the same job, output, registry record
and exit code as on an open session, and the open session still takes over whatever the
quick way does not do (issue 10, command-line costs)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import Cli, until

HEAVY = (
    "asyncio",
    "jobs_tui.engine.session.manager",
    "jobs_tui.engine.session.supervision",
    "jobs_tui.engine.session.control",
    "jobs_tui.engine.session.link",
    "psutil",
)
STATUS_HEAVY = ("socket", "selectors")  # status samples usage through sock_diag on `_socket`

WRAPPER = (
    "import sys\n"
    "from jobs_tui.app.cli import main\n"
    "code = main(sys.argv[1:])\n"
    f"heavy = sorted(m for m in sys.modules if m in {HEAVY!r})\n"
    "print('HEAVY', heavy, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def heavy(cli: Cli, *words: str) -> tuple[int, list[str], str]:
    """(exit code, the heavy modules the call loaded, its stdout)."""
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *words],
        capture_output=True,
        text=True,
        env=cli.env(),
        cwd=cli.cwd,
        timeout=60,
    )
    line = next(x for x in done.stderr.splitlines() if x.startswith("HEAVY"))
    return done.returncode, eval(line.split(" ", 1)[1]), done.stdout


def records(cli: Cli) -> dict[str, dict]:
    """The command-line session's records as its registry file holds them."""
    found: dict[str, dict] = {}
    for path in Path(cli.registry_dir).glob("registry-*.json"):
        for job in json.loads(path.read_text())["jobs"]:
            found[job["id"]] = job
    return found


@pytest.mark.parametrize(
    "words",
    [("exec", "--", "true"), ("exec", "--", "echo hi; exit 3"), ("list",), ("status", "j1")],
)
def test_exec_list_and_status_load_no_event_loop_and_no_session(cli: Cli, words):
    if words[0] == "status":
        cli.ok("start", "--", "sleep 30")
    code, loaded, _out = heavy(cli, *words)
    assert code in (0, 3) and loaded == []


@pytest.mark.parametrize("words", [("list",), ("status", "j1")])
def test_list_and_status_load_no_socket_module(cli: Cli, words):
    cli.ok("start", "--", "sleep 30")
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER.replace(repr(HEAVY), repr(STATUS_HEAVY)), *words],
        capture_output=True,
        text=True,
        env=cli.env(),
        cwd=cli.cwd,
        timeout=60,
    )
    assert done.returncode == 0 and "HEAVY []" in done.stderr, done.stderr


def test_exec_prints_and_exits_as_the_command_did(cli: Cli):
    done = cli("exec", "--", "echo out; echo err >&2; exit 7")
    assert done.code == 7
    assert done.out == "out\nerr\n"
    assert done.err.startswith("✗ j1 echo out; echo err >&2; exit 7 · exit 7 · ")
    again = cli("poll", "j1")
    assert again.code == 0 and again.out == ""  # every byte was read once


def test_a_session_with_something_to_do_takes_the_long_way_with_the_same_result(cli: Cli):
    """An own job whose supervisor died unseen: the glance says no, an open session runs the
    exec (and settles the other job); the record it writes is the quick way's, field for
    field."""
    quick_code, quick_loaded, _ = heavy(cli, "exec", "--", "echo one")
    assert quick_code == 0 and quick_loaded == []
    cli.ok("start", "--", "sleep 30")
    os.kill(records(cli)["j2"]["shimPid"], signal.SIGKILL)
    assert until(lambda: not _alive(records(cli)["j2"]["shimPid"]))
    long_code, long_loaded, out = heavy(cli, "exec", "--", "echo one")
    assert long_code == 0 and "asyncio" in long_loaded and out == "one\n"
    jobs = records(cli)
    assert jobs["j2"]["endReason"] == "shim-gone"  # settled by the session the long way opened
    quick, slow = jobs["j1"], jobs["j3"]
    assert list(quick) == list(slow)
    varying = {"id", "pid", "shimPid", "startToken", "shimToken", "startedAt", "finishedAt"}
    varying |= {"logPath", "statusPath", "cgroup"}
    assert {k: v for k, v in quick.items() if k not in varying} == {
        k: v for k, v in slow.items() if k not in varying
    }
    assert quick["seen"] is True and quick["exitStatus"] == 0 and quick["logBytes"] == 4


def test_exec_that_outlives_its_yield_is_left_running_and_polled_later(cli: Cli):
    done = cli("exec", "--yield-ms", "300", "--", "echo first; sleep 1; echo second")
    assert done.code == 124 and done.out == "first\n"
    assert "still running" in done.err
    assert records(cli)["j1"]["status"] == "running"
    later = cli("poll", "j1", "--wait-ms", "10000")
    assert later.code == 0 and later.out == "second\n"


def test_exec_timeout_env_and_cwd_reach_the_job(cli: Cli, tmp_path: Path):
    where = tmp_path / "elsewhere"
    where.mkdir()
    done = cli(
        "exec", "--env", "GREETING=hello", "--cwd", str(where), "--", 'echo "$GREETING"; pwd'
    )
    assert done.code == 0 and done.out == f"hello\n{where}\n"
    killed = cli("exec", "--timeout-ms", "300", "--", "sleep 30")
    assert killed.code == 143 and "killed by its deadline · SIGTERM" in killed.err
    assert records(cli)["j2"]["endReason"] == "deadline"


def test_exec_of_a_job_whose_supervisor_dies_settles_it_as_the_session_would(cli: Cli):
    """The shim killed while exec waits: its socket closes, the tree is swept, and the job
    ends `killed · SIGKILL` (shim-gone), exit 137, as `Supervisor.settle_gone` does."""
    waiting = cli.popen("exec", "--yield-ms", "20000", "--", "sleep 30")
    assert until(lambda: records(cli).get("j1", {}).get("shimPid") is not None)
    shim = records(cli)["j1"]["shimPid"]
    time.sleep(0.2)  # exec is reading the shim's socket by now
    os.kill(shim, signal.SIGKILL)
    _out, err = waiting.communicate(timeout=30)
    assert waiting.returncode == 137, err
    job = records(cli)["j1"]
    assert job["status"] == "killed" and job["endReason"] == "shim-gone"
    assert not until(lambda: _alive(job["pid"]), timeout=1)  # sh went with its shim


def test_ctrl_c_leaves_the_job_running_and_exits_130(cli: Cli):
    waiting = cli.popen("exec", "--", "echo started; sleep 30")
    assert until(lambda: records(cli).get("j1", {}).get("shimPid") is not None)
    time.sleep(0.3)  # exec waits on the shim's socket by now
    waiting.send_signal(signal.SIGINT)
    _out, err = waiting.communicate(timeout=30)
    assert waiting.returncode == 130 and err == "jobs-tui: interrupted\n"
    assert records(cli)["j1"]["status"] == "running"
    later = cli("poll", "j1")
    assert later.code == 0 and later.out == "started\n"


def test_exec_refuses_bad_input_before_anything_is_started(cli: Cli):
    done = cli("exec", "--cwd", "/no/such/dir", "--", "true")
    assert done.code == 2 and "cwd" in done.err
    bad = cli("exec", "--env", "1BAD=x", "--", "true")
    assert bad.code == 2 and "env" in bad.err
    assert records(cli) == {} and not list(Path(cli.registry_dir).glob("j*.log"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] not in ("Z", "X")
