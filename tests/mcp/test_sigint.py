"""Issue 23 E: SIGINT ends `jobs-tui mcp` at once, as SIGTERM does.

Claude Code sends SIGINT first on every shutdown. The server used to keep running, its
job with it, for 5 s and more (asyncio's SIGINT cancelled the main task, and its shutdown
then waited on the SDK transport's stdin thread until the next line came): only the next
request made it exit. Now SIGINT ends the session as a closed stdin does: the session's
non-detached jobs are killed, the exit status is 130, nothing but one line on stderr.
"""

from __future__ import annotations

import glob
import json
import os
import signal
import time

import psutil
import pytest

from .raw import RawServer
from .test_server import _gone, _wait_gone

EXIT_WITHIN_S = 2.0  # 1 s is the target; the load of a shared machine gets the rest


def _job_pids(registry: str, job_id: str = "j1") -> list[int]:
    """The job's process (from the registry file, not a result the model reads) and its
    descendants, once the shim has started it."""
    deadline = time.monotonic() + 10
    while True:
        for path in glob.glob(os.path.join(registry, "registry-*.json")):
            with open(path) as fh:
                jobs = json.load(fh)["jobs"]
            for job in jobs:
                if job["id"] == job_id and job.get("pid"):
                    time.sleep(0.1)  # the shell's fork, if it makes one
                    try:
                        children = psutil.Process(job["pid"]).children(recursive=True)
                    except psutil.NoSuchProcess:
                        children = []
                    return [job["pid"], *(child.pid for child in children)]
        assert time.monotonic() < deadline, "the job never appeared in the registry"
        time.sleep(0.02)


def _start(server: RawServer, command: str) -> None:
    answer = server.request("tools/call", {"name": "job_start", "arguments": {"command": command}})
    assert answer["result"].get("isError") is not True, answer


def _ends_at_once(server: RawServer, pids: list[int], within: float = EXIT_WITHIN_S) -> str:
    """The server exits 130 within `within` seconds of now, its job's processes gone by
    then; returns its stderr."""
    sent = time.monotonic()
    try:
        code = server.process.wait(timeout=within + 10)
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()
    took = time.monotonic() - sent
    assert server.process.stderr is not None
    said = server.process.stderr.read().decode(errors="replace")
    assert code == 130, (code, said)
    assert took < within, f"the server took {took:.2f}s to end after SIGINT: {said}"
    alive = [pid for pid in pids if not _gone(pid)]
    assert not alive, f"job processes {alive} outlived the server"
    assert "Traceback" not in said, said
    return said


def test_sigint_ends_the_server_and_its_job_at_once(project):
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        _start(server, "sleep 600")
        pids = _job_pids(registry)
        server.process.send_signal(signal.SIGINT)
        said = _ends_at_once(server, pids)
        assert "interrupted" in said, said
    finally:
        server.discard()


def test_sigint_during_a_job_wait_ends_the_wait_the_server_and_the_job(project):
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        _start(server, "sleep 600")
        pids = _job_pids(registry)
        server.wait_in_flight("j1")
        server.process.send_signal(signal.SIGINT)
        _ends_at_once(server, pids)
    finally:
        server.discard()


def test_sigint_right_after_the_handshake_while_the_server_loads(project):
    """The `initialize` answer comes before the SDK is imported: a SIGINT in that window
    (a client that connects and at once shuts down) is an exit 130 too, no traceback."""
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        server.process.send_signal(signal.SIGINT)
        _ends_at_once(server, [])
    finally:
        server.discard()


def test_a_second_sigint_does_not_cut_the_close_short(project, tmp_path, monkeypatch):
    """The close kills the session's jobs (TERM, then KILL after the grace); a client that
    repeats its SIGINT meanwhile used to end the server there, its job still running."""
    config = tmp_path / "config.toml"
    config.write_text("[job]\nkill_grace_ms = 1500\n")
    monkeypatch.setenv("JOBS_TUI_CONFIG", str(config))
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        _start(server, "trap '' TERM; sleep 600; true")  # only the KILL after the grace
        pids = _job_pids(registry)
        server.process.send_signal(signal.SIGINT)
        time.sleep(0.3)
        server.process.send_signal(signal.SIGINT)
        _ends_at_once(server, pids, within=EXIT_WITHIN_S + 1.5)
    finally:
        server.discard()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_still_end_it_with_their_signal(project, signum):
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        _start(server, "sleep 600")
        pids = _job_pids(registry)
        server.process.send_signal(signum)
        assert server.process.wait(timeout=20) == -signum
        for pid in pids:
            assert _wait_gone(pid, 2.0), pid
    finally:
        server.discard()
