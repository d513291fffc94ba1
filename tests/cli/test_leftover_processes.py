"""Issue 22: a job that exits and leaves a daemon behind is not done while the daemon runs.

Its record says so (`exit 0 · 1 process still running`, `remainingProcesses` in JSON),
`kill` kills what is left (and is no "already finished"), and `clear` refuses it, naming
`kill`, unless `--all` is given, which kills the leftovers first.
"""

from __future__ import annotations

import time

from tests.integration.leaks import kill_all, marked

DAEMON = "(setsid sleep 600 >/dev/null 2>&1 &); exit 0"


def _finished_with_daemon(cli) -> list[int]:
    cli.ok("start", "--", DAEMON)
    cli.ok("wait", "j1", "--timeout-ms", "10000")
    deadline = time.monotonic() + 10
    while not (left := marked(cli.registry_dir, "j1")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(left) == 1, left
    return left


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
                    alive.append(pid)
        except OSError:
            pass
    return alive


def test_a_left_daemon_shows_blocks_clear_and_is_killed(cli):
    daemon = _finished_with_daemon(cli)
    try:
        status = cli.ok("status", "j1")
        assert "exit 0 · 1 process still running" in status.out
        assert "exit 0 · 1 process still running" in cli.ok("list").out
        assert cli.ok("status", "j1", "--json").json()["job"]["remainingProcesses"] == 1
        refused = cli("clear", "j1")
        assert refused.code == 4 and "kill" in refused.err, refused
        assert _alive(daemon) and cli.ok("status", "j1", "--json").json()["job"]["id"] == "j1"
        killed = cli("kill", "j1")
        assert killed.code == 0, killed
        assert "already finished" not in killed.out + killed.err
        assert _alive(daemon) == []  # the kill is reported once they are gone
        after = cli.ok("status", "j1", "--json").json()["job"]
        assert after["remainingProcesses"] == 0 and after["status"] == "exited"
        assert "still running" not in cli.ok("status", "j1").out
        cli.ok("clear", "j1")
    finally:
        kill_all(daemon)


def test_clear_all_kills_the_leftovers_first(cli):
    daemon = _finished_with_daemon(cli)
    try:
        kept = cli.ok("clear")  # every finished job: not this one, and it says why
        assert "not cleared" in kept.err and "j1" in kept.err and _alive(daemon)
        cli.ok("clear", "--all")
        assert _alive(daemon) == []
        assert cli.ok("list", "--json").json()["jobs"] == []
    finally:
        kill_all(daemon)


def test_kill_with_sigkill_of_a_finished_job_with_a_daemon(cli):
    daemon = _finished_with_daemon(cli)
    try:
        assert cli("kill", "j1", "--signal", "SIGKILL").code == 0
        assert _alive(daemon) == []
    finally:
        kill_all(daemon)
