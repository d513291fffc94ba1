"""Issue 11 on the command line, with real jobs: `wait ID... --any --until --from-start
--timeout-ms` and its exit codes, and `restart ID`."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from .conftest import Cli, until

SERVER = (
    f'{sys.executable} -c "import socket,time;time.sleep(3.0);s=socket.socket();'
    "s.bind(('127.0.0.1',0));s.listen();print('starting');"
    "print('ready on :%d'%s.getsockname()[1],flush=True);time.sleep(60)\""
)


def test_wait_until_returns_the_ready_line_of_a_dev_server(cli: Cli):
    cli.ok("start", "--label", "dev", "--", SERVER)
    began = time.monotonic()
    # searched from the call's start: the server prints 3 s after it started, later than
    # this call begins even on a loaded machine
    done = cli("wait", "j1", "--until", r"ready on :\d+", "--timeout-ms", "30000")
    assert done.code == 0, done
    assert done.out.startswith("ready on :") and done.out.count("\n") == 1
    assert "matched" in done.err and time.monotonic() - began < 25
    port = int(done.out.strip().rsplit(":", 1)[1])
    assert cli.ok("status", "j1", "--json").json()["job"]["status"] == "running"
    again = cli("wait", "j1", "--until", "ready on", "--from-start", "--json").json()
    assert again["exit"] == 0 and again["reason"] == "match" and again["job"]["id"] == "j1"
    assert again["match"]["jobId"] == "j1" and again["match"]["line"] == f"ready on :{port}"
    assert again["match"]["offset"] == len(b"starting\n")  # where the line starts in the log


def test_wait_until_searches_from_the_call_unless_from_start(cli: Cli):
    cli.ok("start", "--", "echo ready; sleep 300")
    assert until(lambda: "ready" in cli.ok("logs", "j1").out)
    late = cli("wait", "j1", "--until", "ready", "--timeout-ms", "400")
    assert late.code == 124 and "still running" in late.err
    assert cli("wait", "j1", "--until", "ready", "--from-start").code == 0


def test_wait_until_on_a_job_that_ends_without_a_match_exits_with_its_code(cli: Cli):
    cli.ok("start", "--", "echo nothing here; exit 7")
    done = cli("wait", "j1", "--until", "ready", "--from-start", "--json")
    assert done.code == 7 and done.json()["reason"] == "finished", done


def test_wait_any_returns_with_the_first_job_to_end(cli: Cli):
    cli.ok("start", "--", "sleep 20")
    cli.ok("start", "--", "sleep 0.5; exit 3")
    cli.ok("start", "--", "sleep 300")
    began = time.monotonic()
    done = cli("wait", "j1", "j2", "j3", "--any", "--json", "--timeout-ms", "60000")
    assert done.code == 3 and time.monotonic() - began < 15, done
    out = done.json()
    assert out["job"]["id"] == "j2" and out["reason"] == "finished"
    assert [j["id"] for j in out["jobs"]] == ["j1", "j2", "j3"]
    assert [j["status"] for j in out["jobs"]] == ["running", "failed", "running"]


def test_wait_all_exits_0_only_if_every_job_succeeded(cli: Cli):
    cli.ok("start", "--", "sleep 0.2")
    cli.ok("start", "--", "sleep 0.4; exit 5")
    cli.ok("start", "--", "exit 6")
    assert cli("wait", "j1").code == 0
    assert cli("wait", "j1", "j2", "j3").code == 5  # the first failing code, in the order asked
    assert cli("wait", "j3", "j2").code == 6
    cli.ok("start", "--", "true")
    assert cli("wait", "j1", "j4").code == 0
    lines = cli("wait", "j1", "j2").out.splitlines()
    assert len(lines) == 2 and "j1" in lines[0] and "j2" in lines[1]


def test_wait_times_out_with_124(cli: Cli):
    cli.ok("start", "--", "sleep 300")
    cli.ok("start", "--", "true")
    assert cli("wait", "j1", "--timeout-ms", "300").code == 124
    assert cli("wait", "j1", "--until", "never", "--timeout-ms", "300").code == 124
    out = cli("wait", "j1", "j2", "--timeout-ms", "300", "--json").json()
    assert out["exit"] == 124 and out["timedOut"] is True and out["reason"] == "timeout"


def test_wait_refuses_a_bad_regex_or_id_naming_it(cli: Cli):
    cli.ok("start", "--", "sleep 300")
    bad = cli("wait", "j1", "--until", "(unclosed", "--json")
    assert bad.code == 2 and bad.json()["field"] == "--until", bad
    assert "--until" in bad.err
    assert cli("wait", "j1", "j99").code == 3
    assert cli("wait", "j1", "x/1").code == 2  # "x1" would be a declared name (exit 3)
    assert cli("wait", "j1", "--from-start").code == 2  # needs --until


def test_wait_help_documents_the_exit_codes(cli: Cli):
    text = cli.ok("wait", "--help").out
    for word in ("124", "--any", "first failing code", "--until"):
        assert word in text


def test_restart_a_running_job_keeps_command_cwd_label_and_env(cli: Cli):
    sub = Path(cli.cwd) / "sub"
    sub.mkdir()
    command = 'echo "$MODE"; pwd; sleep 300'
    cli.ok("start", "--label", "web", "--cwd", "sub", "--env", "MODE=dev", "--", command)
    assert until(lambda: "dev" in cli.ok("logs", "j1").out)
    done = cli("restart", "j1", "--json")
    assert done.code == 0, done
    new = done.json()["job"]
    assert new["id"] == "j2" and new["status"] == "running" and done.json()["restartOf"] == "j1"
    assert new["restartOf"] == "j1" and new["envNames"] == ["MODE"]
    old = cli.ok("status", "j1", "--json").json()["job"]
    assert old["status"] != "running"
    assert (new["command"], new["cwd"], new["label"]) == (command, old["cwd"], "web")
    assert until(lambda: cli.ok("logs", "j2").out == f"dev\n{sub}\n")
    running = cli.ok("list", "--running", "--json").json()["jobs"]
    assert [j["id"] for j in running] == ["j2"]


def test_restart_a_finished_job(cli: Cli):
    cli.ok("start", "--label", "once", "--", "echo run")
    assert cli("wait", "j1").code == 0
    done = cli.ok("restart", "j1")
    assert "j2" in done.out and "restart of j1" in done.out
    assert cli("wait", "j2").code == 0
    assert cli.ok("logs", "j2").out == "run\n"


def test_restart_refuses_another_sessions_running_job(cli: Cli):
    cli.ok("start", "--", "sleep 300", session="other")
    refused = cli("restart", "j1")
    assert refused.code == 4, refused
    assert cli.ok("status", "j1", "--json").json()["job"]["status"] == "running"
    assert cli("restart", "j9").code == 3


def test_restart_keeps_env_values_off_every_command_line(cli: Cli):
    secret = "restart-secret-5d2c"
    cli.ok("start", "--env", "TOKEN", "--", 'echo "$TOKEN"; sleep 300', env={"TOKEN": secret})
    cli.ok("restart", "j1")
    assert until(lambda: cli.ok("logs", "j2").out == f"{secret}\n")
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                assert secret.encode() not in (entry / "cmdline").read_bytes(), entry
            except OSError:
                continue
    assert os.environ.get("TOKEN") is None
