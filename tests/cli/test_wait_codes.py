"""The exit status of `jobs-tui wait` (a pure rule over the records a wait returns)."""

from __future__ import annotations

from jobs_tui.app.verbs.wait import first_to_end, wait_code
from jobs_tui.engine.records.model import JobRecord, JobStatus


def record(job_id: str, status: JobStatus, code: int | None = 0, ended: int | None = 1):
    return JobRecord(
        id=job_id,
        label="l",
        command="c",
        cwd="/",
        pid=1,
        status=status,
        exit_code=code,
        signal=None,
        started_at=0,
        finished_at=ended,
        log_path="/x",
        detached=False,
        wake=False,
        session_id="s",
    )


RUNNING = JobStatus.RUNNING
OK, FAILED, UNKNOWN = JobStatus.EXITED, JobStatus.FAILED, JobStatus.UNKNOWN


def test_a_match_is_0_and_a_timeout_124_whatever_the_jobs_did():
    failed = [record("j1", FAILED, 3)]
    assert wait_code("match", failed, "all") == 0
    assert wait_code("timeout", failed, "any") == 124


def test_one_job_its_own_code_or_125_when_none_was_recorded():
    assert wait_code("finished", [record("j1", FAILED, 7)], "all") == 7
    assert wait_code("finished", [record("j1", OK, 0)], "any") == 0
    assert wait_code("finished", [record("j1", UNKNOWN, None)], "all") == 125


def test_any_the_code_of_the_first_job_to_end():
    jobs = [
        record("j1", RUNNING, None, None),
        record("j2", FAILED, 4, ended=50),
        record("j3", OK, 0, ended=20),
    ]
    assert first_to_end(jobs).id == "j3" and wait_code("finished", jobs, "any") == 0
    jobs[2] = record("j3", OK, 0, ended=90)
    assert wait_code("finished", jobs, "any") == 4


def test_all_0_only_if_every_job_succeeded_else_the_first_failing_in_the_order_asked():
    good = [record("j1", OK), record("j2", OK)]
    assert wait_code("finished", good, "all") == 0
    mixed = [record("j1", OK), record("j2", FAILED, 5, ended=9), record("j3", FAILED, 6, ended=2)]
    assert wait_code("finished", mixed, "all") == 5
    assert wait_code("finished", mixed[::-1], "all") == 6
