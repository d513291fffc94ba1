"""Hostile registry directories: huge numbers, planted FIFOs and links, wrong shapes, stale locks.

Every test that could hang on a FIFO has a short timeout, so a hang fails fast.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jobs_tui.engine import JobError, JobManager, UnknownJob
from jobs_tui.engine.records.ids import is_job_id
from jobs_tui.engine.records.model import JobStatus
from jobs_tui.engine.registry.paths import RegistryPaths
from jobs_tui.engine.registry.safefiles import REGISTRY_FILE_LIMIT
from jobs_tui.engine.tools import JobTools

from .helpers import until
from .test_registry_faults import dead_pid, reference_record, write_session

HUGE = "9" * 5000

pytestmark = pytest.mark.timeout(30)


def problems_of(jm: JobManager) -> list[str]:
    return jm.take_problems()


def corrupt_copies(directory: str, name: str) -> list[str]:
    return [n for n in os.listdir(directory) if n.startswith(name + ".corrupt-")]


# -- 9.4 huge and out-of-range numbers ---------------------------------------------------


async def test_a_number_too_long_to_convert_never_stops_list_or_start(registry_dir: str):
    Path(registry_dir).mkdir(mode=0o700)
    bad = Path(registry_dir) / "registry-huge.json"
    bad.write_text('{"version": 1, "sessionId": "x", "counter": 2, "jobs": [], "n": ' + HUGE + "}")
    async with JobManager(registry_dir=registry_dir) as jm:
        await jm.list()
        rec = await jm.start("true")
        assert rec.id == "j1"
        assert any("registry-huge.json" in p and "kept as" in p for p in problems_of(jm))
    assert not bad.exists() and len(corrupt_copies(registry_dir, "registry-huge.json")) == 1
    listed = subprocess.run(
        [sys.executable, "-m", "jobs_tui.app.cli", "list"],
        env=dict(os.environ, JOBS_TUI_REGISTRY_DIR=registry_dir),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr


async def test_the_reconcile_loop_survives_a_bad_file_planted_while_it_runs(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        bad = Path(registry_dir) / "registry-later.json"
        bad.write_text('{"version": 1, "sessionId": "y", "counter": ' + HUGE + ', "jobs": []}')
        await asyncio.sleep(1.5)  # a reconcile pass meets it
        peer = [reference_record("j7", registry_dir, "peer")]
        write_session(registry_dir, "peer", peer, pid=os.getpid())
        assert await until(lambda: jm.registry.get("j7") is not None, 5)
        assert corrupt_copies(registry_dir, "registry-later.json")


@pytest.mark.parametrize("counter", [10**9, 10**12])
async def test_a_peer_counter_at_or_past_the_last_id_never_stops_start(
    registry_dir: str, counter: int
):
    Path(registry_dir).mkdir(mode=0o700)
    jobs = [reference_record("j999999999", registry_dir, "peer")]
    data = {"version": 1, "sessionId": "peer", "counter": counter, "jobs": jobs}
    paths = write_session(registry_dir, "peer", [], pid=os.getpid())
    paths.registry_file("peer").write_text(json.dumps(data))
    async with JobManager(registry_dir=registry_dir) as jm:
        first = await jm.start("true")
        second = await jm.start("true")
        assert is_job_id(first.id) and is_job_id(second.id)
        assert len({first.id, second.id, "j999999999"}) == 3
        written = json.loads(jm.paths.registry_file(jm.session_id).read_text())
        assert written["counter"] <= 10**9


async def test_an_entry_with_a_pid_out_of_range_is_skipped_and_reported(registry_dir: str):
    jobs = [
        reference_record("j1", registry_dir, "peer", status="running", pid=10**30),
        reference_record("j2", registry_dir, "peer"),
    ]
    write_session(registry_dir, "peer", jobs, pid=os.getpid())
    async with JobManager(registry_dir=registry_dir) as jm:
        with pytest.raises(UnknownJob):
            jm.get("j1")
        assert jm.get("j2").session_id == "peer"
        assert any("'pid' is out of range" in p for p in problems_of(jm))


# -- 9.7 FIFOs, devices, symlinks, oversize files ----------------------------------------


@pytest.mark.timeout(10)
@pytest.mark.parametrize("name", ["registry-x.json", "session-x.json", "cursors-x.json"])
async def test_a_fifo_in_the_registry_is_refused_quickly_and_reported(registry_dir, name):
    Path(registry_dir).mkdir(mode=0o700)
    fifo = Path(registry_dir) / name
    os.mkfifo(fifo, 0o600)
    if name == "session-x.json":  # the session whose marker it is
        write_session(registry_dir, "x", [reference_record("j4", registry_dir, "x")], pid=None)
    started = time.monotonic()
    async with JobManager(registry_dir=registry_dir) as jm:
        await jm.list()
        await jm.start("true")
        assert any(name in p and "FIFO" in p for p in problems_of(jm))
    assert time.monotonic() - started < 5
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # left alone, never replaced or adopted


@pytest.mark.timeout(10)
async def test_fifo_status_and_log_files_of_a_job_are_refused(registry_dir: str):
    record = reference_record("j2", registry_dir, "peer", status="running", pid=dead_pid())
    paths = write_session(registry_dir, "peer", [record], pid=os.getpid())
    os.mkfifo(paths.status("j2"), 0o600)
    os.mkfifo(paths.log("j2"), 0o600)
    async with JobManager(registry_dir=registry_dir) as jm:
        assert jm.get("j2").status is JobStatus.UNKNOWN  # the FIFO was not believed
        with pytest.raises(JobError, match="FIFO"):
            await jm.logs("j2")
        with pytest.raises(JobError, match="FIFO"):
            await jm.read_since("j2", 0)
        with pytest.raises(JobError, match="FIFO"):
            await jm.page("j2", 0, 10)
        with pytest.raises(JobError, match="FIFO"):
            jm.follow("j2", 0).read()
        found = problems_of(jm)
        assert any("j2.status" in p and "FIFO" in p for p in found)
        assert any("j2.log" in p and "FIFO" in p for p in found)


@pytest.mark.timeout(10)
async def test_a_symlink_to_dev_zero_is_never_read(registry_dir: str):
    Path(registry_dir).mkdir(mode=0o700)
    link = Path(registry_dir) / "registry-zero.json"
    os.symlink("/dev/zero", link)
    async with JobManager(registry_dir=registry_dir) as jm:
        await jm.list()
        assert any("registry-zero.json" in p and "symbolic link" in p for p in problems_of(jm))
    assert os.path.islink(link)


@pytest.mark.timeout(10)
async def test_a_device_node_named_as_a_registry_file_is_refused(registry_dir: str):
    Path(registry_dir).mkdir(mode=0o700)
    node = Path(registry_dir) / "registry-dev.json"
    try:
        os.mknod(node, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero
    except PermissionError:
        pytest.skip("mknod needs CAP_MKNOD, which this machine does not give")
    async with JobManager(registry_dir=registry_dir) as jm:
        await jm.list()
        assert any("registry-dev.json" in p and "device" in p for p in problems_of(jm))


async def test_a_symlink_to_a_registry_file_elsewhere_is_never_adopted(registry_dir, tmp_path):
    real = [reference_record("j1", registry_dir, "real", status="running", pid=os.getpid())]
    paths = write_session(registry_dir, "real", real, pid=os.getpid())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    fake = {
        "version": 1,
        "sessionId": "ghost",
        "counter": 2,
        "jobs": [reference_record("j1", registry_dir, "ghost", status="failed", exitCode=9)],
    }
    target = elsewhere / "reg.json"
    target.write_text(json.dumps(fake))
    os.symlink(target, Path(registry_dir) / "registry-link.json")
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = jm.get("j1")
        assert rec.session_id == "real" and not jm.is_own(rec)
        assert any("registry-link.json" in p and "symbolic link" in p for p in problems_of(jm))
    assert json.loads(target.read_text()) == fake
    assert os.path.islink(Path(registry_dir) / "registry-link.json")
    assert paths.registry_file("real").exists()


async def test_a_registry_file_over_the_limit_is_quarantined(registry_dir: str):
    Path(registry_dir).mkdir(mode=0o700)
    big = Path(registry_dir) / "registry-big.json"
    with open(big, "wb") as fh:
        fh.write(b'{"version": 1, "sessionId": "big", "counter": 2, "jobs": [], "pad": "')
        fh.write(b"x" * REGISTRY_FILE_LIMIT)
        fh.write(b'"}')
    async with JobManager(registry_dir=registry_dir) as jm:
        assert any("registry-big.json" in p and "larger than" in p for p in problems_of(jm))
    assert not big.exists() and len(corrupt_copies(registry_dir, "registry-big.json")) == 1


# -- 9.8 wrong shapes, skipped entries, problems once ------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        {"version": 1, "sessionId": "dead", "counter": 3, "jobs": {"j1": "not a list"}},
        {"whatever": [1, 2, 3]},
    ],
)
async def test_a_dead_sessions_file_of_the_wrong_shape_is_kept(registry_dir, content):
    paths = write_session(registry_dir, "dead", [], pid=dead_pid())
    paths.registry_file("dead").write_text(json.dumps(content))
    async with JobManager(registry_dir=registry_dir) as jm:
        assert any("original kept as" in p for p in problems_of(jm))
    (kept,) = corrupt_copies(registry_dir, paths.registry_file("dead").name)
    assert json.loads((Path(registry_dir) / kept).read_text()) == content
    assert not paths.registry_file("dead").exists()


async def test_a_dead_sessions_skipped_entries_are_kept_with_the_original(registry_dir: str):
    jobs = [
        reference_record("j1", registry_dir, "dead"),
        reference_record("j2", registry_dir, "dead", pid="not a pid"),
    ]
    paths = write_session(registry_dir, "dead", jobs, pid=dead_pid())
    original = paths.registry_file("dead").read_text()
    async with JobManager(registry_dir=registry_dir) as jm:
        assert jm.is_own(jm.get("j1"))
        found = problems_of(jm)
        assert any("skipped an entry" in p for p in found)
        assert any("original kept as" in p for p in found)
    (kept,) = corrupt_copies(registry_dir, paths.registry_file("dead").name)
    assert (Path(registry_dir) / kept).read_text() == original


async def test_a_clean_dead_session_leaves_no_copy(registry_dir: str):
    jobs = [reference_record("j1", registry_dir, "dead")]
    paths = write_session(registry_dir, "dead", jobs, pid=dead_pid())
    async with JobManager(registry_dir=registry_dir) as jm:
        assert jm.is_own(jm.get("j1"))
    assert corrupt_copies(registry_dir, paths.registry_file("dead").name) == []


async def test_problems_are_reported_once_each_not_once_per_refresh(registry_dir: str):
    jobs = [
        reference_record("j1", registry_dir, "live"),
        reference_record("j2", registry_dir, "live", wake="yes"),
    ]
    write_session(registry_dir, "live", jobs, pid=os.getpid())
    async with JobManager(registry_dir=registry_dir) as jm:
        first = jm.take_problems()
        assert len([p for p in first if "skipped an entry" in p]) == 1
        for _ in range(5):
            jm.registry.refresh_peers(0, force=True)
            jm.registry._cache.clear()  # parse the file again each time, as after a rewrite
        await asyncio.sleep(1.2)  # and the reconcile loop's passes
        assert jm.take_problems() == []
        assert len(jm.registry.problems) == len(set(jm.registry.problems)) <= len(first)
        details = await JobTools(jm).call({"action": "list"})
        assert details["problems"] == []
    async with JobManager(registry_dir=registry_dir) as jm:
        details = await JobTools(jm).call({"action": "list"})
        assert any("skipped an entry" in p for p in details["problems"])
        assert (await JobTools(jm).call({"action": "list"}))["problems"] == []


# -- 9.11 stale locks and the umask ------------------------------------------------------


def _lock(directory: str, job_id: str, pid: int | None, age_s: float) -> Path:
    path = RegistryPaths(directory).lock(job_id)
    payload = {"sessionId": "s", "pid": pid, "at": 0} if pid is not None else {}
    path.write_text(json.dumps(payload))
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


async def test_locks_of_killed_starts_are_pruned_when_reserving(registry_dir: str):
    Path(registry_dir).mkdir(mode=0o700)
    dead_writer = _lock(registry_dir, "j1", dead_pid(), 120)
    ancient = _lock(registry_dir, "j2", None, 2 * 3600)
    live_writer = _lock(registry_dir, "j3", os.getpid(), 120)
    just_made = _lock(registry_dir, "j4", dead_pid(), 1)  # its shim may still be starting
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("true")
        await jm.wait(rec.id, 10_000)
    assert not dead_writer.exists() and not ancient.exists()
    assert live_writer.exists() and just_made.exists()
    assert rec.id == "j5"  # above every number a file (here a live lock) still holds


def test_every_directory_made_is_0700_whatever_the_umask(tmp_path, monkeypatch):
    script = (
        "import asyncio, os, sys\n"
        "from jobs_tui.engine import JobManager\n"
        "os.umask(0)\n"
        "async def main():\n"
        "    async with JobManager(registry_dir=sys.argv[1]) as jm:\n"
        "        pass\n"
        "    async with JobManager(cwd=sys.argv[2]) as jm:\n"
        "        print(jm.dir)\n"
        "asyncio.run(main())\n"
    )
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    project = tmp_path / "project"
    project.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "a" / "b" / "reg"), str(project)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    default_dir = Path(done.stdout.strip())
    made = [tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "reg", state]
    made += [p for p in default_dir.parents if str(p).startswith(str(state))]
    made.append(default_dir)
    modes = {str(p): oct(stat.S_IMODE(os.stat(p).st_mode)) for p in made}
    assert set(modes.values()) == {"0o700"}, modes


# -- 9.6 another user's directory and files ----------------------------------------------


@pytest.fixture
def other_user():
    """A real second local user, created for the test and removed after it."""
    import pwd
    import secrets
    import shutil

    if os.geteuid() != 0 or not shutil.which("useradd") or not shutil.which("userdel"):
        pytest.skip("creating a second local user needs root and useradd/userdel")
    name = f"jt{secrets.token_hex(4)}"
    for attempt in range(20):  # /etc/passwd may be locked by another useradd for a moment
        made = subprocess.run(
            ["useradd", "-M", "-N", "-s", "/usr/sbin/nologin", name],
            capture_output=True,
            text=True,
            check=False,
        )
        if made.returncode == 0:
            break
        time.sleep(0.1 * (attempt + 1))
    else:
        pytest.skip(f"this machine cannot create users: {made.stderr.strip()}")
    try:
        yield pwd.getpwnam(name).pw_uid
    finally:
        for attempt in range(20):
            if subprocess.run(["userdel", name], capture_output=True, check=False).returncode in (
                0,
                6,  # no such user
            ):
                break
            time.sleep(0.1 * (attempt + 1))


async def test_a_registry_directory_of_another_user_is_refused(tmp_path, other_user):
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chmod(theirs, 0o755)
    os.chown(theirs, other_user, -1)
    with pytest.raises(JobError, match="belongs to another user") as caught:
        await JobManager(registry_dir=theirs).open()
    assert caught.value.field == "registry_dir"
    st = os.stat(theirs)
    assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (other_user, 0o755)  # not taken over
    assert os.listdir(theirs) == []
    listed = subprocess.run(
        [sys.executable, "-m", "jobs_tui.app.cli", "list"],
        env=dict(os.environ, JOBS_TUI_REGISTRY_DIR=str(theirs)),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert listed.returncode == 1, listed.stderr
    assert "another user" in listed.stderr and "Traceback" not in listed.stderr
    assert os.listdir(theirs) == []


async def test_files_of_another_user_in_our_registry_are_refused_and_reported(
    registry_dir: str, other_user: int
):
    paths = write_session(
        registry_dir, "dead", [reference_record("j5", registry_dir, "dead")], pid=dead_pid()
    )
    os.chown(paths.registry_file("dead"), other_user, -1)
    running = reference_record("j2", registry_dir, "peer", status="running", pid=dead_pid())
    finished = reference_record("j3", registry_dir, "peer")
    write_session(registry_dir, "peer", [running, finished], pid=os.getpid())
    paths.status("j2").write_text("0")
    os.chown(paths.status("j2"), other_user, -1)
    paths.log("j3").write_text("planted\n")
    os.chown(paths.log("j3"), other_user, -1)
    write_session(registry_dir, "m", [], pid=os.getpid())
    os.chown(paths.marker_file("m"), other_user, -1)
    async with JobManager(registry_dir=registry_dir) as jm:
        with pytest.raises(UnknownJob):
            jm.get("j5")  # never adopted, never shown
        assert jm.get("j2").status is JobStatus.UNKNOWN  # the planted status was not believed
        with pytest.raises(JobError, match="another user"):
            await jm.logs("j3")
        found = [p for p in problems_of(jm) if "belongs to another user" in p]
        for name in (paths.registry_file("dead").name, "j2.status", paths.marker_file("m").name):
            assert any(p.startswith(name + ":") for p in found), (name, found)
    assert os.stat(paths.registry_file("dead")).st_uid == other_user  # left where it was


async def test_our_own_file_with_a_skipped_entry_is_kept_once_then_written_clean(registry_dir):
    jobs = [
        reference_record("j1", registry_dir, "cli"),
        reference_record("j2", registry_dir, "cli", exitCode=2**40),
    ]
    paths = write_session(registry_dir, "cli", jobs, pid=None, persistent=True)
    original = paths.registry_file("cli").read_text()
    for _ in range(3):  # three command-line calls of that session
        jm = JobManager(registry_dir=registry_dir, session_id="cli", persistent=True)
        await jm.open()
        assert [r.id for r in jm.jobs(include_peers=False)] == ["j1"]
        await jm.close()
    (kept,) = corrupt_copies(registry_dir, paths.registry_file("cli").name)
    assert (Path(registry_dir) / kept).read_text() == original
    assert [j["id"] for j in json.loads(paths.registry_file("cli").read_text())["jobs"]] == ["j1"]
