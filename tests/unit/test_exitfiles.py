"""Status files: only an exit code (0-255) or a real signal number (-1..-64) is an outcome."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from jobs_tui.engine.records.model import JobRecord, JobStatus, outcome
from jobs_tui.engine.registry.exitfiles import read_exit
from jobs_tui.engine.registry.paths import RegistryPaths


def _paths(tmp_path: Path) -> RegistryPaths:
    root = tmp_path / "reg"
    root.mkdir(mode=0o700)
    return RegistryPaths(root)


@pytest.mark.parametrize("raw", [b"0", b"3", b"255", b"-1", b"-9", b"-64", b"7\n"])
def test_real_statuses_are_read(tmp_path: Path, raw: bytes):
    paths = _paths(tmp_path)
    paths.status("j1").write_bytes(raw)
    info = read_exit(paths, "j1", None)
    assert info is not None and info.exit_status == int(raw) and info.note is None


@pytest.mark.parametrize(
    "raw", [b"9999999999", b"300", b"256", b"-999999999", b"-65", b"-0065", b"1" * 10]
)
def test_junk_statuses_are_unknown_with_a_note(tmp_path: Path, raw: bytes):
    paths = _paths(tmp_path)
    paths.status("j1").write_bytes(raw)
    info = read_exit(paths, "j1", None)
    assert info is not None, "a status file that exists is an answer: unknown, with a note"
    assert info.exit_status is None
    assert info.note and "j1" in info.note and "not an exit code" in info.note
    assert outcome(info.exit_status, info.reason, info.signal, str)[0] is JobStatus.UNKNOWN


@pytest.mark.parametrize("status", [9999999999, 300, 256, -999999999, -65])
def test_outcome_of_an_impossible_status_is_unknown(status: int):
    def name(n: int) -> str:
        return signal.Signals(n).name

    assert outcome(status, None, None, name) == (JobStatus.UNKNOWN, None, None)
    assert outcome(status, "kill", "SIGTERM", name) == (JobStatus.UNKNOWN, None, None)


def test_what_a_job_left_running_is_read_from_its_end_file_and_kept_by_the_record(
    tmp_path: Path,
):
    """A session that settles from the files (it was not linked when the job ended) learns
    what the tree left running there: `remaining.refresh` only counts again a record that
    says some remain, so a 0 here would hide a daemon for good."""
    from jobs_tui.engine.registry.reconcile import finish

    paths = _paths(tmp_path)
    paths.status("j1").write_bytes(b"0")
    paths.end("j1").write_bytes(b'{"exitStatus": 0, "remaining": 2}')
    info = read_exit(paths, "j1", None)
    assert info is not None and info.remaining == 2
    record = JobRecord(
        id="j1", label="x", command="x", cwd="/", pid=None, status=JobStatus.RUNNING,
        exit_code=None, signal=None, started_at=1, finished_at=None, log_path="/r/j1.log",
        detached=False, wake=False, session_id="s",
    )  # fmt: skip
    finish(record, info, 2, str)
    assert record.remaining_processes == 2
    paths.end("j1").write_bytes(b'{"exitStatus": 0, "remaining": -3}')
    assert read_exit(paths, "j1", None).remaining is None
