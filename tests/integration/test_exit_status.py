"""Junk in a status file never crashes a call: the outcome is unknown, with a note."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.engine.records.model import JobStatus

from .test_registry_faults import dead_pid, reference_record, write_session


@pytest.mark.parametrize("junk", ["9999999999", "300", "-999999999"])
async def test_junk_status_file_settles_unknown_with_a_note(registry_dir: str, junk: str):
    record = reference_record(
        "j1",
        registry_dir,
        "cli",
        status="running",
        exitCode=None,
        finishedAt=None,
        pid=dead_pid(),
        statusPath=f"{registry_dir}/j1.status",
    )
    paths = write_session(registry_dir, "cli", [record], pid=None, persistent=True)
    paths.status("j1").write_text(junk)
    wait = subprocess.run(
        [
            sys.executable,
            "-m",
            "jobs_tui.app.cli",
            "--registry-dir",
            registry_dir,
            "wait",
            "j1",
            "--timeout-ms",
            "2000",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in wait.stderr, wait.stderr
    assert wait.returncode == 125, (wait.returncode, wait.stdout, wait.stderr)
    assert "unknown" in wait.stdout and "SIG9" not in wait.stdout


@pytest.mark.parametrize("junk", ["9999999999", "300", "-999999999"])
async def test_junk_status_file_is_a_problem_note_in_the_engine(registry_dir: str, junk: str):
    record = reference_record(
        "j2",
        registry_dir,
        "eng",
        status="running",
        exitCode=None,
        finishedAt=None,
        pid=dead_pid(),
        statusPath=f"{registry_dir}/j2.status",
    )
    paths = write_session(registry_dir, "eng", [record], pid=None, persistent=True)
    paths.status("j2").write_text(junk)
    async with JobManager(registry_dir=registry_dir, session_id="eng", persistent=True) as jm:
        rec = await jm.wait("j2", 2000)
        assert rec.status is JobStatus.UNKNOWN and rec.exit_code is None and rec.signal is None
        assert rec.exit_status is None
        problems = jm.take_problems()
        assert any("j2" in p and junk in p for p in problems), problems
