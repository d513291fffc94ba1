"""`status` says who ended a job (issue 27, feature 3): a kill from the command line names
the door and its session, in words and in `status --json`'s `endedBy`."""

from __future__ import annotations

from .conftest import Cli


def test_a_kill_from_the_command_line_names_the_door_and_the_session(cli: Cli):
    cli.ok("start", "--", "sleep 300", session="alpha")
    cli.ok("kill", "j1", session="alpha")
    status = cli.ok("status", "j1", session="alpha")
    assert "ended  killed · SIGTERM · by the command line (session alpha)" in status.out
    job = cli.ok("status", "j1", "--json", session="alpha").json()["job"]
    want = {"by": "request", "signal": "SIGTERM", "door": "cli", "session": "alpha"}
    assert job["endedBy"] == want
    # another session reads the same words from the file
    seen = cli.ok("status", "j1", "--json", session="beta").json()["job"]
    assert seen["endedBy"] == want


def test_a_job_that_exits_was_ended_by_itself(cli: Cli):
    cli.ok("start", "--", "exit 4")
    waited = cli("wait", "j1", "--json")
    assert waited.code == 4  # wait exits with the job's code
    job = waited.json()["job"]
    assert job["endedBy"] == {"by": "self", "exitCode": 4}
    assert "ended  exit 4" in cli.ok("status", "j1").out


def test_a_running_job_has_no_ended_by(cli: Cli):
    cli.ok("start", "--", "sleep 300")
    assert "endedBy" not in cli.ok("status", "j1", "--json").json()["job"]
    assert "ended " not in cli.ok("status", "j1").out
