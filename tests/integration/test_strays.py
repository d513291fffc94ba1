"""Processes that escaped (issue 27, feature 2): a real server that double-forked out of
its shell (so it re-parented) in a project directory is a stray; a job's process, a child
of a live parent and a process outside the project are not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.engine.procs import strays
from jobs_tui.engine.procs.strays import ProcFacts, is_stray

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
SERVER = (
    "import socket, time; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
    "open('port', 'w').write(str(s.getsockname()[1])); time.sleep(300)"
)


def _escape(cwd: Path) -> int:
    """Start the server with nohup in a subshell that exits at once (a double fork, no
    terminal): it re-parents; its pid."""
    out = subprocess.run(
        ["sh", "-c", f'(nohup {sys.executable} -c "{SERVER}" >/dev/null 2>&1 & echo $!)'],
        cwd=cwd,
        capture_output=True,
        text=True,
        start_new_session=True,
        check=True,
    )
    return int(out.stdout.strip())


def _ppid(pid: int) -> int:
    raw = Path(f"/proc/{pid}/stat").read_bytes()
    return int(raw[raw.rfind(b")") + 2 :].split()[1])


def _wait(path: Path, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text():
        assert time.monotonic() < deadline, f"{path} never came"
        time.sleep(0.02)


def test_an_escaped_server_in_the_project_is_a_stray_with_its_port(tmp_path: Path):
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    pid = _escape(project / "sub")
    try:
        _wait(project / "sub" / "port")
        port = int((project / "sub" / "port").read_text())
        parent = _ppid(pid)  # 1 here; the nearest subreaper where there is one
        found = strays.gather(str(project), subreapers=[parent])
        mine = [s for s in found if s.pid == pid]
        assert len(mine) == 1, found
        stray = mine[0]
        assert "socket.socket()" in stray.command and stray.cwd == str(project / "sub")
        assert [p.port for p in stray.ports] == [port]
        assert stray.rss > 0 and 0 <= stray.age_s < 60
        assert stray.to_json()["ports"] == [{"port": port, "proto": "tcp"}]
        assert strays.gather(str(tmp_path / "elsewhere"), subreapers=[parent]) == []
        assert strays.gather(str(project), job_pids=[pid], subreapers=[parent]) == []
        assert strays.kill_stray(pid, str(project)) is (parent == 1)  # SIGTERM: its tree
        if parent != 1:
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


async def test_a_jobs_processes_and_a_live_parents_child_are_not_strays(
    tmp_path: Path, registry_dir: str
):
    project = tmp_path / "project"
    project.mkdir()
    child = subprocess.Popen(["sleep", "30"], cwd=project, start_new_session=True)
    try:
        async with JobManager(cwd=str(project), registry_dir=registry_dir) as jm:
            # a job that leaves an orphan behind: it re-parents to the job's shim, and
            # it carries the job's marker anyway; the shim (ppid 1, in the project, no
            # terminal, no marker) is no stray either
            record = await jm.start("(sleep 30 &) ; sleep 30")
            time.sleep(0.3)
            found = strays.gather(str(project))
            assert [s.pid for s in found] == [], found
            assert child.pid not in [s.pid for s in found]
            await jm.kill(record.id, "SIGKILL")
    finally:
        child.kill()
        child.wait()


def test_the_rule():
    base = ProcFacts(pid=50, ppid=1, uid=1000, tty=False, cwd="/p/x")
    assert is_stray(base, "/p", 1000)
    assert not is_stray(base, "/p", 1001)  # another user's
    assert not is_stray(ProcFacts(50, 1, 1000, True, "/p"), "/p", 1000)  # a terminal's
    assert not is_stray(ProcFacts(50, 1, 1000, False, "/px"), "/p", 1000)  # outside
    assert not is_stray(ProcFacts(50, 1, 1000, False, None), "/p", 1000)  # cwd unknown
    assert not is_stray(ProcFacts(50, 1, 1000, False, "/p", marker="ab:j1"), "/p", 1000)
    assert not is_stray(ProcFacts(50, 7, 1000, False, "/p"), "/p", 1000)  # a live parent
    assert is_stray(ProcFacts(50, 7, 1000, False, "/p"), "/p", 1000, subreapers={7})
    assert is_stray(ProcFacts(50, 7, 1000, False, "/p", parent_name="systemd"), "/p", 1000)
    assert not is_stray(base, "/p", 1000, job_pids={50})
    assert not is_stray(base, "/p", 1000, me=50)
    assert not is_stray(ProcFacts(50, 1, 1000, False, "/p", supervisor=True), "/p", 1000)
