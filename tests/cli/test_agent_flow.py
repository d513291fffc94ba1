"""The multi-call agent flow: one persistent session across many short `jobs-tui` processes."""

from __future__ import annotations

import json
import os
import re
import sys

from jobs_tui.engine import JobManager
from jobs_tui.engine.registry.paths import session_hash

from .conftest import Cli, until

REPL = f"{sys.executable} -u -c " + (
    "\"import sys\nprint('ready', flush=True)\nfor line in sys.stdin: print('echo', line.strip(), "
    'flush=True)"'
)


def test_start_then_poll_send_and_kill_from_later_calls(cli: Cli):
    started = cli.ok("start", "--stdin", "--json", "--", REPL).json()
    assert started["job"]["sessionId"] == "cli" and started["job"]["status"] == "running"
    collected = ""

    def poll() -> str:
        nonlocal collected
        result = cli.ok("poll", "j1")
        collected += result.out
        assert result.err.startswith("▸ j1 ")  # the outcome line goes to stderr
        return collected

    assert until(lambda: "ready" in poll())
    cli.ok("send", "j1", "first")
    cli.ok("send", "j1", "second")
    assert until(lambda: "echo second" in poll())
    assert collected == "ready\necho first\necho second\n"  # every byte exactly once
    assert cli.ok("poll", "j1").out == ""
    killed = cli.ok("kill", "j1")
    assert "SIGTERM sent" in killed.out and "killed" in killed.out
    final = cli.ok("poll", "j1", "--json").json()
    assert final["job"]["status"] == "killed" and final["output"] == ""
    cursors = os.path.join(cli.registry_dir, f"cursors-{session_hash('cli')}.json")
    with open(cursors) as fh:
        assert json.load(fh)["offsets"]["j1"] == len(collected)
    assert os.stat(cursors).st_mode & 0o777 == 0o600


def test_parallel_polls_of_one_session_share_one_cursor(cli: Cli):
    cli.ok("start", "--", "sleep 1; seq 1 3000")
    procs = [cli.popen("poll", "j1", "--json", "--wait-ms", "8000") for _ in range(6)]
    outputs = []
    for proc in procs:
        out, _err = proc.communicate(timeout=60)
        assert proc.returncode == 0
        outputs.append(json.loads(out)["output"])
    text = "".join(outputs)
    while more := cli.ok("poll", "j1", "--json").json()["output"]:
        text += more
    numbers = text.split()
    assert len(numbers) == len(set(numbers)) == 3000  # none twice, none lost


def test_a_screen_beside_sees_cli_jobs_as_another_sessions_and_leaves_them(
    cli: Cli, registry_dir: str
):
    import asyncio

    cli.ok("start", "--", "sleep 30")
    marker = os.path.join(registry_dir, "session-")
    assert not any(
        name.startswith(os.path.basename(marker)) for name in os.listdir(registry_dir)
    ), "the command-line call left no live marker behind"

    async def screen() -> tuple[bool, str, bool]:
        async with JobManager(registry_dir=registry_dir) as jm:  # an ordinary session
            await asyncio.sleep(1.2)  # a reconcile pass runs meanwhile
            jobs = await jm.list()
            (record,) = jobs
            return jm.is_own(record), record.session_id, record.running

    own, session, running = asyncio.run(screen())
    assert (own, session, running) == (False, "cli", True)
    files = [n for n in os.listdir(registry_dir) if re.fullmatch(r"registry-\w+\.json", n)]
    owners = set()
    for name in files:
        with open(os.path.join(registry_dir, name)) as fh:
            owners.add(json.load(fh)["sessionId"])
    assert "cli" in owners  # not adopted: the command line's file is still its own
    listed = cli.ok("list").out
    assert "0 peer" in listed and re.search(r"▸ j1 .*\ds$", listed, re.M)
    assert cli.ok("kill", "j1").code == 0  # still the command line's to control


def test_another_session_name_is_a_peer(cli: Cli):
    cli.ok("start", "--stdin", "--", "cat", session="agent-a")
    peer = cli.ok("list", session="agent-b").out
    assert re.search(r"▸ j1 .* peer$", peer, re.M)
    refused = cli("send", "j1", "x", session="agent-b")
    assert refused.code == 4 and "another session's job" in refused.err
    assert cli("clear", "j1", "--all", session="agent-b").code == 4
    assert cli.ok("send", "j1", "--eof", session="agent-a").code == 0
    assert cli("wait", "j1", session="agent-b").code == 0  # waiting on a peer works
    cli.ok("start", "--", "sleep 30", session="agent-a")
    flag = cli.ok("list", "--session", "agent-b", session="agent-a").out  # flag beats env
    assert re.search(r"▸ j2 .* peer$", flag, re.M)
    taken = cli.ok("--session", "agent-b", "kill", "j2")  # a deliberate take-over
    assert "taken over from another session" in taken.out
    mine = cli.ok("list", "--json", session="agent-b").json()["jobs"]
    assert [(j["id"], j["sessionId"]) for j in mine] == [("j2", "agent-b")]


def test_concurrent_calls_of_one_session_keep_every_job(cli: Cli):
    procs = [cli.popen("start", "--", f"sleep 30 # {n}") for n in range(4)]
    procs += [cli.popen("list") for _ in range(2)]
    for proc in procs:
        assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
        proc.stdout.close()
        proc.stderr.close()
    jobs = cli.ok("list", "--json").json()["jobs"]
    # Every start kept its job under its own id. An id may be skipped when a racer of
    # the same session commits a higher number between a lock and its check (the
    # counter rule never hands out a number a file's counter has passed).
    ids = sorted((j["id"] for j in jobs), key=lambda i: int(i[1:]))
    assert len(set(ids)) == 4 and {j["command"] for j in jobs} == {
        f"sleep 30 # {n}" for n in range(4)
    }
    assert all(j["sessionId"] == "cli" and j["status"] == "running" for j in jobs)
    first, second, third, fourth = ids
    clearers = [cli.popen("kill", job_id) for job_id in (first, second)]
    for proc in clearers:
        assert proc.wait(timeout=60) == 0
        proc.stdout.close()
        proc.stderr.close()
    cli.ok("clear", first)
    statuses = {j["id"]: j["status"] for j in cli.ok("list", "--json").json()["jobs"]}
    assert statuses == {second: "killed", third: "running", fourth: "running"}


def test_exec_returns_output_and_code_or_becomes_a_job(cli: Cli):
    done = cli("exec", "--", "echo out; echo err >&2; exit 5")
    assert done.code == 5 and done.out == "out\nerr\n"
    assert re.fullmatch(r"✗ j1 echo out; echo err >&2; exit 5 · exit 5 · \d+\.\ds\n", done.err)
    slow = cli("exec", "--yield-ms", "300", "--", "echo begin; sleep 0.6; echo finish")
    assert slow.code == 124 and slow.out == "begin\n"
    assert "still running; `jobs-tui poll j2`" in slow.err
    assert until(lambda: cli.ok("status", "j2").out.startswith("✓"))
    assert cli.ok("poll", "j2").out == "finish\n"
    as_json = cli("exec", "--json", "--", "printf 'a\\tb'").json()
    assert as_json["output"] == "a\tb" and as_json["job"]["exitCode"] == 0
    assert as_json["supervision"]["state"] == "exited"
    killed = cli("exec", "--", "kill -TERM $$")
    assert killed.code == 128 + 15
    assert cli("exec", "--timeout-ms", "300", "--yield-ms", "5000", "--", "sleep 30").code == 143
    assert cli("exec", "--", "").code == 2
    assert cli("poll", "j99").code == 3


def test_exec_on_a_terminal(cli: Cli):
    done = cli("exec", "--tty", "--", "test -t 0 && test -t 1 && echo terminal")
    assert done.code == 0 and done.out == "terminal\n"
