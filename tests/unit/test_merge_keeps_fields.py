"""Issue 22: two copies of one running record, one written before its shim reported its
pids: whichever copy the merge rule prefers, the pids are not lost."""

from __future__ import annotations

import dataclasses

from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.engine.registry.ownfile import merge_own

ME = "cli"


def running(**fields) -> JobRecord:
    base = JobRecord(
        id="j1",
        label="x",
        command="sleep 30",
        cwd="/src",
        pid=None,
        status=JobStatus.RUNNING,
        exit_code=None,
        signal=None,
        started_at=1000,
        finished_at=None,
        log_path="/reg/j1.log",
        detached=False,
        wake=False,
        session_id=ME,
    )
    return dataclasses.replace(base, **fields)


IDENTITY = dict(pid=4242, start_token="b:1", shim_pid=4241, shim_token="b:0")


def _merged(mine: JobRecord, disk: JobRecord) -> JobRecord:
    own = {"j1": mine}
    merge_own(own, {}, {"j1": disk}, deleted=set(), on_disk={"j1"}, session_id=ME)
    return own["j1"]


def test_a_stale_copy_without_pids_does_not_erase_them_from_the_file():
    merged = _merged(running(), running(**IDENTITY))
    assert (merged.pid, merged.shim_pid, merged.start_token) == (4242, 4241, "b:1")


def test_the_pids_of_our_copy_survive_a_file_without_them():
    merged = _merged(running(**IDENTITY), running())
    assert (merged.pid, merged.shim_pid, merged.shim_token) == (4242, 4241, "b:0")


def test_a_settled_copy_keeps_the_pids_the_running_one_had():
    settled = running(status=JobStatus.EXITED, exit_code=0, finished_at=2000)
    merged = _merged(running(**IDENTITY), settled)
    assert merged.status is JobStatus.EXITED and merged.pid == 4242


def test_an_outcome_is_never_mixed_from_two_copies():
    killed = running(status=JobStatus.KILLED, signal="SIGTERM", finished_at=2000, **IDENTITY)
    failed = running(status=JobStatus.FAILED, exit_code=3, finished_at=3000)
    merged = _merged(killed, failed)  # the later one wins, and only its outcome is kept
    assert (merged.status, merged.exit_code, merged.signal) == (JobStatus.FAILED, 3, None)
    assert merged.pid == 4242
