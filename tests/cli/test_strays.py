"""`jobs-tui strays` over a real escaped server (issue 27, feature 2): listed with its port
(its hostile command line sanitized), in JSON as `schema cli` says, killed by `--kill`
(escalating for one that ignores SIGTERM); a pid that is no stray is exit 2 naming it,
and nothing is killed, not even the strays named beside it."""

from __future__ import annotations

import sys
from pathlib import Path

import jsonschema
import pytest

from jobs_tui.engine.procs.strays import SUBREAPERS
from tests.escaped import HOSTILE, alive, escaped, gone, ppid

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")


def _orphaned(pid: int) -> None:
    parent = ppid(pid)
    name = Path(f"/proc/{parent}/comm").read_text().strip() if parent != 1 else "init"
    assert parent == 1 or name in SUBREAPERS, f"re-parented to {parent} ({name})"


def _schema(cli) -> dict:
    return cli.ok("schema", "cli").json()["strays"]


def test_none_then_a_server_listed_with_its_port_then_killed(cli):
    assert cli.ok("strays").out.strip() == "No strays."
    empty = cli.ok("strays", "--json").json()
    assert empty["strays"] == [] and empty["exit"] == 0
    with escaped(Path(cli.cwd)) as (pid, port):
        _orphaned(pid)
        table = cli.ok("strays").out
        assert table.splitlines()[0].split() == ["PID", "AGE", "CPU", "MEM", "PORTS", "COMMAND"]
        (row,) = [line for line in table.splitlines()[1:] if line.split()[0] == str(pid)]
        assert str(port) in row.split() and "socket" in row
        assert "\x1b" not in table and "\x07" not in table  # the sanitizer's
        listed = cli.ok("strays", "--json").json()
        jsonschema.validate(listed, _schema(cli))
        (stray,) = [s for s in listed["strays"] if s["pid"] == pid]
        assert stray["ports"] == [{"port": port, "proto": "tcp"}]
        assert stray["cwd"] == cli.cwd and HOSTILE in stray["command"]
        assert stray["rss"] > 0 and stray["ageS"] >= 0
        killed = cli.ok("strays", "--kill", str(pid), "--json").json()
        jsonschema.validate(killed, _schema(cli))
        assert killed["killed"] == [
            {"pid": pid, "command": stray["command"], "processes": 1, "escalated": False}
        ]
        assert gone(pid)
        assert cli.ok("strays").out.strip() == "No strays."


def test_one_that_ignores_sigterm_is_killed_after_the_grace(cli):
    with escaped(Path(cli.cwd), stubborn=True) as (pid, _port):
        done = cli.ok("strays", "--kill", str(pid))
        assert done.out.startswith(f"killed {pid} (1 process, SIGKILL after the grace)")
        assert "\x1b" not in done.out
        assert gone(pid)


def test_a_pid_that_is_not_a_stray_is_refused_and_nothing_is_killed(cli, tmp_path):
    job = cli.ok("start", "--json", "--", "sleep 30").json()["job"]
    with escaped(Path(cli.cwd)) as (pid, _port):
        for other in (job["pid"], 1, 999_999_999):
            done = cli("strays", "--kill", str(pid), str(other), "--json")
            assert done.code == 2, done
            error = done.json()
            assert error["field"] == "--kill" and error["code"] == "usage"
            assert f"--kill {other} is not a stray" in error["error"]
            assert "nothing was killed" in error["error"]
            assert alive(pid)  # named beside it: spared too
        done = cli("strays", "--kill", "0")
        assert done.code == 2 and "'0' is not a process id" in done.err
        assert cli.ok("status", job["id"], "--json").json()["job"]["status"] == "running"
        # still a stray after all those refusals; the job is not one
        listed = [s["pid"] for s in cli.ok("strays", "--json").json()["strays"]]
        assert pid in listed and job["pid"] not in listed
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    with escaped(outside) as (pid, _port):
        done = cli("strays", "--kill", str(pid))
        assert done.code == 2 and f"--kill {pid} is not a stray" in done.err
        assert alive(pid)
