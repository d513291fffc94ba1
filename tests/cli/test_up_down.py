"""`jobs-tui up --detach` and `jobs-tui down` through the real entry point (issue 26), with
real jobs: the start order (a job runs only once what it depends on got there), what is
said per name, failures and their exit codes, the stop order, `down` with no file, a
declared name in every verb that takes an id, `wait --ready` both ways, and the usage
errors. Their --json output is held to the published `schema cli` shapes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from .conftest import Cli, until

# a ready on a log line after 0.3 s; b needs a ready (and proves it: a's file is there
# when b runs); c needs b started.
STACK = """
[jobs.a]
command = "sleep 0.3; touch a.done; echo a is ready; exec sleep 60"
ready = { log = "a is ready", period_ms = 50 }

[jobs.b]
command = "test -f a.done && echo b saw a; exec sleep 60"
depends_on = { a = "ready" }

[jobs.c]
command = "echo c runs; exec sleep 60"
depends_on = { b = "started" }
"""


@pytest.fixture(scope="module")
def shapes() -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "jobs_tui.app.cli", "schema", "cli"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def shaped(shapes: dict, out: str, verb: str) -> dict:
    value = json.loads(out)
    jsonschema.validate(value, shapes["error" if "error" in value else verb])
    return value


def declare(cli: Cli, text: str = STACK) -> Path:
    path = Path(cli.cwd) / "jobs-tui.toml"
    path.write_text(text)
    return path


def jobs(cli: Cli) -> dict[str, dict]:
    """The session's jobs by declared name (the newest of each)."""
    found: dict[str, dict] = {}
    for job in reversed(cli.ok("list", "--json").json()["jobs"]):
        if job.get("name"):
            found[job["name"]] = job
    return found


def test_up_detach_starts_each_job_once_its_dependencies_got_there(cli: Cli, shapes):
    declare(cli)
    done = cli("up", "--detach")
    assert done.code == 0, done
    assert done.out.splitlines() == ["a  started j1", "b  started j2", "c  started j3"]
    assert cli.ok("wait", "b", "--until", "b saw a", "--from-start", "--timeout-ms", "10000")
    assert cli.ok("wait", "c", "--until", "c runs", "--from-start", "--timeout-ms", "10000")
    named = jobs(cli)
    assert {n: j["status"] for n, j in named.items()} == {
        "a": "running",
        "b": "running",
        "c": "running",
    }
    again = shaped(shapes, cli.ok("up", "--detach", "--json").out, "up")
    assert again["started"] == [] and again["failed"] == []
    assert [j["name"] for j in again["running"]] == ["a", "b", "c"]
    assert cli.ok("up", "--detach").out.splitlines()[0] == "a  already running j1"


def test_up_names_starts_them_and_what_they_need_only(cli: Cli):
    declare(cli)
    assert cli.ok("up", "b", "--detach").out.splitlines() == ["a  started j1", "b  started j2"]
    assert set(jobs(cli)) == {"a", "b"}


def test_a_job_that_cannot_start_is_named_with_why_and_its_dependents_too(cli: Cli, shapes):
    declare(cli, STACK.replace("[jobs.b]\n", '[jobs.b]\ncwd = "no-such-dir"\n'))
    done = cli("up", "--detach")
    assert done.code == 1, done
    lines = done.out.splitlines()
    assert lines[0] == "a  started j1"
    assert lines[1].startswith("b  not started: cwd ") and "not an existing directory" in lines[1]
    assert lines[2] == "c  not started: b did not start"
    cli.ok("down")
    out = shaped(shapes, cli("up", "--detach", "--json").out, "up")
    assert out["exit"] == 1 and [f["name"] for f in out["failed"]] == ["b", "c"]


def test_an_invalid_file_or_an_unknown_name_exits_2_and_starts_nothing(cli: Cli, shapes):
    declare(cli, '[jobs.a]\ncommand = "x"\ndepends_on = { a = "started" }\n')
    done = cli("up", "--detach")
    assert done.code == 2 and done.out == ""
    assert "jobs-tui.toml: jobs.a.depends_on" in done.err
    out = shaped(shapes, cli("up", "--detach", "--json").out, "up")
    assert out["exit"] == 2 and out["action"] == "up" and out["errors"]
    declare(cli)
    unknown = cli("up", "nope", "--detach")
    assert unknown.code == 2
    assert "no declared job named 'nope' (declared: a, b, c)" in unknown.err
    assert cli("down", "nope").code == 2
    assert cli("up", "j3", "--detach").code == 2  # an id is never a name
    assert cli.ok("list", "--json").json()["jobs"] == []


def test_up_with_no_file_says_where_it_looked(cli: Cli):
    done = cli("up", "--detach")
    assert done.code == 1 and "no declared jobs in" in done.err


def test_up_usage_errors(cli: Cli):
    declare(cli)
    no_detach = cli("up", "--json")
    assert no_detach.code == 2 and "up --json needs --detach" in no_detach.out
    screen = cli("up")  # stdout is a pipe here: the screen cannot open
    assert screen.code == 2 and "pass --detach" in screen.err
    assert cli.ok("list", "--json").json()["jobs"] == []


def test_down_stops_dependents_first_and_says_what_was_not_running(cli: Cli, shapes):
    declare(cli)
    cli.ok("up", "b", "--detach")
    cli.ok("wait", "b", "--until", "b saw a", "--from-start", "--timeout-ms", "10000")
    out = shaped(shapes, cli.ok("down", "--json").out, "down")
    stopped = [s["job"] for s in out["stopped"]]
    assert [j["name"] for j in stopped] == ["b", "a"]  # reverse dependency order
    assert all(j["status"] == "killed" for j in stopped)
    assert stopped[0]["finishedAt"] <= stopped[1]["finishedAt"]
    assert out["notRunning"] == ["c"]
    again = cli.ok("down")
    assert again.out.splitlines() == ["c: not running", "b: not running", "a: not running"]


def test_down_names_stops_them_and_their_dependents_only(cli: Cli):
    declare(cli)
    cli.ok("up", "--detach")
    cli.ok("wait", "c", "--until", "c runs", "--from-start", "--timeout-ms", "10000")
    lines = cli.ok("down", "b").out.splitlines()
    assert [line.split()[1] for line in lines] == ["j3", "j2"]  # c, then b
    named = jobs(cli)
    assert named["a"]["status"] == "running"
    assert named["b"]["status"] == named["c"]["status"] == "killed"


def test_down_with_the_file_gone_still_stops_every_declared_job(cli: Cli):
    path = declare(cli)
    cli.ok("up", "--detach")
    cli.ok("start", "--", "sleep 60")  # not declared: left alone
    path.unlink()
    lines = cli.ok("down").out.splitlines()
    assert sorted(line.split()[2] for line in lines) == ["a", "b", "c"]
    running = [j for j in cli.ok("list", "--json").json()["jobs"] if j["status"] == "running"]
    assert [j["id"] for j in running] == ["j4"]


def test_a_declared_name_works_in_every_verb_that_takes_an_id(cli: Cli):
    declare(cli, '[jobs.a]\ncommand = "echo hello from a; exec sleep 60"\n')
    cli.ok("up", "--detach")
    assert cli.ok("wait", "a", "--until", "hello", "--from-start", "--timeout-ms", "10000")
    assert cli.ok("status", "a").out.startswith("▸ j1 a · running")
    assert cli.ok("status", "a", "--json").json()["job"]["id"] == "j1"
    assert "hello from a" in cli.ok("logs", "a").out
    assert "hello from a" in cli.ok("logs", "a", "--grep", "hello").out
    assert cli.ok("poll", "a", "--json").json()["job"]["id"] == "j1"
    sent = cli("send", "a", "hi")  # no stdin pipe: the job's own refusal, not the name's
    assert sent.code != 3 and "j1" in sent.err
    restarted = cli.ok("restart", "a", "--json").json()
    assert restarted["job"]["id"] == "j2" and restarted["job"]["name"] == "a"
    assert cli.ok("status", "a", "--json").json()["job"]["id"] == "j2"  # its current job
    assert cli.ok("kill", "a").out.startswith("■ j2 a · killed")
    unknown = cli("status", "nope")
    assert unknown.code == 3 and "'nope' is not a known job or a declared job's name" in unknown.err
    bad = cli("status", "a b")
    assert bad.code == 2 and "is not a job id like j1 or a declared job's name" in bad.err


def test_wait_ready_exits_0_once_the_probe_passed(cli: Cli, shapes):
    declare(cli)
    cli.ok("up", "a", "--detach")
    done = cli("wait", "a", "--ready", "--timeout-ms", "10000")
    assert done.code == 0, done
    assert done.out.startswith("▸ j1 a · running") and done.out.rstrip().endswith("· ready")
    out = shaped(shapes, cli("wait", "a", "--ready", "--json").out, "wait")
    assert out["reason"] == "ready" and out["job"]["phase"] == "ready" and out["exit"] == 0


def test_wait_ready_exits_1_when_not_ready_in_time_or_ended_unready(cli: Cli):
    declare(
        cli,
        '[jobs.never]\ncommand = "exec sleep 60"\n'
        "ready = { port = 1, period_ms = 50, limit_ms = 300 }\n"
        '[jobs.quits]\ncommand = "echo bye"\nready = { log = "never said" }\n',
    )
    cli.ok("up", "--detach")
    late = cli("wait", "never", "--ready", "--timeout-ms", "10000")
    assert late.code == 1, late
    assert "· not ready" in late.out
    gone = cli("wait", "quits", "--ready", "--timeout-ms", "10000")
    assert gone.code == 1, gone
    assert gone.out.startswith("✓ j2 quits · exit 0")


def test_wait_ready_usage_errors(cli: Cli):
    for flag in (["--until", "x"], ["--port", "80"]):
        done = cli("wait", "a", "--ready", *flag)
        assert done.code == 2 and f"--ready cannot be combined with {flag[0]}" in done.err
    cli.ok("start", "--", "sleep 30")
    plain = cli("wait", "j1", "--ready", "--json")
    assert plain.code == 2 and plain.json()["field"] == "--ready"
    assert "j1 is not a declared job" in plain.json()["error"]


def test_a_crash_loop_is_a_finish_with_its_restarts_said(cli: Cli):
    declare(
        cli,
        '[jobs.w]\ncommand = "echo try; exit 3"\nrestart = "on-failure"\n'
        "max_restarts = 2\nbackoff_ms = 50\n",
    )
    cli.ok("up", "--detach")
    done = cli("wait", "w", "--timeout-ms", "20000")
    assert done.code == 3, done
    assert done.out.startswith("✗ j1 w · exit 3 · crash loop after 2 restarts · ")
    assert until(lambda: "crash loop after 2 restarts" in cli.ok("status", "w").out)
    assert cli.ok("logs", "w").out.count("── restart") == 2


def test_a_job_whose_dependency_failed_never_ran(cli: Cli):
    declare(
        cli,
        '[jobs.a]\ncommand = "exit 4"\n'
        '[jobs.b]\ncommand = "echo b ran"\ndepends_on = { a = "succeeded" }\n',
    )
    cli.ok("up", "--detach")
    done = cli("wait", "b", "--timeout-ms", "10000")
    assert done.code == 1, done
    assert done.out.startswith("✗ j2 b · never ran: a did not succeed")
    assert "b ran" not in cli.ok("logs", "b").out
