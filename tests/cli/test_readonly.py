"""Read-only verbs stay read-only (issue 10.6): no shim is connected, no registry file is
written; a verb that acts on a job attaches to that job only; nothing settles later."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from jobs_tui.engine.registry.paths import session_hash

from ..integration.helpers import gone, tree
from ..integration.sessions import SessionProcess
from .conftest import Cli, until
from .shimwatch import ShimWatch, changes, snapshot

READS = (
    ("status", "j2"),
    ("status", "j1", "--json"),
    ("list",),
    ("list", "--all", "--json"),
    (),  # no verb, off a terminal: the rows
    ("logs", "j3"),
    ("logs", "j3", "--offset", "0", "--limit", "5", "--json"),
    ("schema", "job"),
    ("config", "show"),
    ("strays",),  # issue 27
    ("strays", "--json"),
)


@pytest.fixture
def watch(cli: Cli):
    """watch("j1") puts a counting relay in front of j1's shim (removed before teardown)."""
    made: list[ShimWatch] = []

    def make(job_id: str) -> ShimWatch:
        made.append(ShimWatch(Path(cli.registry_dir) / f"{job_id}.sock"))
        return made[-1]

    yield make
    for relay in made:
        relay.close()


def start(cli: Cli, command: str, *flags: str) -> dict:
    return cli.ok("start", "--json", *flags, "--", command).json()["job"]


def test_reads_with_running_jobs_connect_to_no_shim_and_leave_every_file_as_it_was(cli: Cli, watch):
    ids = [start(cli, "sleep 60")["id"], start(cli, "sleep 60")["id"]]
    ids.append(start(cli, "echo out; sleep 60")["id"])
    assert until(lambda: "out" in cli.ok("logs", "j3").out)
    relays = {job: watch(job) for job in ids}
    before = snapshot(cli.registry_dir)
    for words in READS:
        cli.ok(*words)
    assert {job: r.accepted for job, r in relays.items()} == dict.fromkeys(ids, 0)
    assert changes(before, snapshot(cli.registry_dir)) == []
    listed = cli.ok("list", "--json").json()["jobs"]
    assert [(j["id"], j["status"]) for j in listed] == [
        ("j3", "running"),
        ("j2", "running"),
        ("j1", "running"),
    ]


def test_poll_writes_only_its_cursor_file_and_nothing_when_the_cursor_stays(cli: Cli, watch):
    start(cli, "echo one; sleep 60")
    start(cli, "sleep 60")
    assert until(lambda: "one" in cli.ok("logs", "j1").out)
    relays = [watch("j1"), watch("j2")]
    before = snapshot(cli.registry_dir, skip=("cursors-",))
    assert cli.ok("poll", "j1").out == "one\n"
    # The cursor file is replaced by a rename: the directory changes, nothing else does.
    assert changes(before, snapshot(cli.registry_dir, skip=("cursors-",))) == ["changed ."]
    before = snapshot(cli.registry_dir)
    assert cli.ok("poll", "j1").out == ""  # nothing new: the cursor stays, nothing is written
    assert cli.ok("poll", "j1", "--json").json()["output"] == ""
    assert changes(before, snapshot(cli.registry_dir)) == []
    assert [r.accepted for r in relays] == [0, 0]


def test_send_wait_and_kill_attach_to_their_own_job_only(cli: Cli, watch):
    for _ in range(3):
        start(cli, "cat", "--stdin")
    relays = {job: watch(job) for job in ("j1", "j2", "j3")}
    cli.ok("send", "j2", "hi")
    cli.ok("send", "j2", "--eof")
    assert cli("wait", "j2", "--timeout-ms", "10000").code == 0
    assert relays["j1"].accepted == relays["j3"].accepted == 0 and relays["j2"].accepted >= 1
    assert cli.ok("logs", "j2").out == "hi\n"
    assert "SIGTERM sent" in cli.ok("kill", "j3").out
    assert relays["j1"].accepted == 0 and relays["j3"].accepted >= 1
    assert cli.ok("status", "j1").out.startswith("▸ j1 cat · running")


ESCAPING = "(setsid sh -c 'sleep 300' &); sleep 300 & sleep 300"


@pytest.mark.parametrize("verb", [("status", "j1"), ("list",)])
def test_a_job_whose_shim_died_is_settled_and_swept_by_the_next_read(cli: Cli, verb):
    job = start(cli, ESCAPING)
    assert until(lambda: len(tree(job["shimPid"])) >= 4)
    pids = tree(job["shimPid"])
    os.kill(job["shimPid"], signal.SIGKILL)
    assert until(lambda: gone(job["pid"]), 5)  # the group leader dies with its shim
    out = cli.ok(*verb).out
    assert "supervisor gone" in out or "■ j1 " in out
    assert all(gone(p) for p in pids), [p for p in pids if not gone(p)]
    status = cli.ok("status", "j1", "--json").json()["job"]
    assert (status["status"], status["endReason"]) == ("killed", "shim-gone")


def test_a_job_that_ended_between_calls_is_settled_by_the_next_read(cli: Cli):
    start(cli, "exit 3")
    status = Path(cli.registry_dir) / "j1.status"
    assert until(status.exists)
    assert cli.ok("list").out.splitlines()[1].startswith("✗ j1 ")
    assert cli.ok("status", "j1").out.startswith("✗ j1 exit 3 · exit 3")


def test_a_dead_sessions_jobs_are_adopted_by_a_read(cli: Cli, registry_dir: str):
    jobs = [{"command": "sleep 300"}, {"command": "sleep 300", "detached": True}]
    other = SessionProcess(registry_dir, jobs, session="agent")
    try:
        info = asyncio.run(other.started())
        other.kill(signal.SIGKILL)
    finally:
        other.close()
    (attached, detached) = info["jobs"]
    listed = {j["id"]: j for j in cli.ok("list", "--json").json()["jobs"]}
    assert {j["sessionId"] for j in listed.values()} == {"cli"}  # adopted, both
    assert listed[attached["id"]]["status"] == "killed"  # it died with its session
    assert listed[detached["id"]]["status"] == "running" and not gone(detached["pid"])
    assert not any(n.startswith("registry-") and "adopting" in n for n in os.listdir(registry_dir))


# -- the quick way: `list` and `status` without an event loop ------------------------------

MODULES = (
    "import sys\n"
    "from jobs_tui.app.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "heavy = sorted(\n"
    "    m for m in sys.modules if m in ('asyncio', 'jobs_tui.engine.session.manager')\n"
    ")\n"
    "print('HEAVY', heavy, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def heavy_modules(cli: Cli, *words: str) -> str:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", MODULES, *words],
        capture_output=True,
        text=True,
        env=cli.env(),
        cwd=cli.cwd,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return next(x for x in done.stderr.splitlines() if x.startswith("HEAVY")).split(" ", 1)[1]


def test_list_and_status_of_a_session_with_nothing_to_do_load_no_event_loop(cli: Cli):
    start(cli, "sleep 60")
    assert start(cli, "sleep 0.5; exit 4")["status"] == "running"  # ends after the call
    assert until((Path(cli.registry_dir) / "j2.status").exists)
    # j2 ended while no call ran: the next call settles it, on an open session.
    assert heavy_modules(cli, "list") == "['asyncio', 'jobs_tui.engine.session.manager']"
    for words in (("list",), ("list", "--all", "--json"), ("status", "j1"), ()):
        assert heavy_modules(cli, *words) == "[]", words
    # A finish nobody reported yet is marked reported by `status`: a write, the long way.
    assert heavy_modules(cli, "status", "j2") == "['asyncio', 'jobs_tui.engine.session.manager']"
    assert heavy_modules(cli, "status", "j2") == "[]"
    assert cli("status", "j9").code == 3  # unknown here: the session looks again, then says so


def test_a_glance_changes_nothing_even_when_the_session_has_something_to_do(
    cli: Cli, registry_dir: str
):
    from jobs_tui.engine.session.glance import Glance

    from ..integration.test_registry_faults import reference_record, write_session

    start(cli, "sleep 60")
    dead = reference_record("j5", registry_dir, "gone", status="running", pid=None)
    write_session(registry_dir, "gone", [dead], pid=None)  # a dead session: to adopt
    before = snapshot(registry_dir)
    view = Glance(cli.cwd, "cli", registry_dir=registry_dir)
    assert view.load() is False and any("adopt" in why for why in view.due)
    assert changes(before, snapshot(registry_dir)) == []
    listed = {j["id"]: j for j in cli.ok("list", "--json").json()["jobs"]}
    assert listed["j5"]["sessionId"] == "cli" and listed["j5"]["status"] != "running"
    assert Glance(cli.cwd, "cli", registry_dir=registry_dir).load() is True  # done: glance


def test_a_read_that_settles_writes_once_and_the_reads_after_it_write_nothing(cli: Cli):
    job = start(cli, "sleep 0.5; exit 3")
    assert job["status"] == "running"  # it ends after the call that started it
    assert until(lambda: gone(job["shimPid"]))
    registry = f"registry-{session_hash('cli')}.json"
    before = snapshot(cli.registry_dir)
    assert cli.ok("list").out.splitlines()[1].startswith("✗ j1 ")  # settled here
    assert f"changed {registry}" in changes(before, snapshot(cli.registry_dir))
    before = snapshot(cli.registry_dir)
    for words in (("list",), ("list", "--json")):
        cli.ok(*words)
    assert changes(before, snapshot(cli.registry_dir)) == []
    assert cli.ok("status", "j1").out.startswith("✗ j1 sleep 0.5; exit 3 · exit 3")  # seen now
    assert f"changed {registry}" in changes(before, snapshot(cli.registry_dir))
    before = snapshot(cli.registry_dir)
    for words in (("status", "j1"), ("status", "j1", "--json"), ("list",), ("logs", "j1")):
        cli.ok(*words)
    assert changes(before, snapshot(cli.registry_dir)) == []
