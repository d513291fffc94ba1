"""The declared jobs' rows and detail rows (screens/jobs/declared.py): pure functions over
records and a stack read from a real file."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from jobs_tui.engine.declared import load_stack
from jobs_tui.engine.declared.model import Probe
from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.engine.records.results import KillResult
from jobs_tui.engine.session.declaring import DownResult, UpResult
from jobs_tui.screens.jobs.declared import (
    NotStarted,
    declared_state,
    depends_text,
    detail_rows,
    down_note,
    is_not_started,
    name_states,
    not_started,
    probe_text,
    restart_text,
    row_label,
    up_note,
    with_declared,
)
from jobs_tui.screens.jobs.feed import counts_fingerprint, shown_of

STACK = """
[jobs.db]
command = "postgres -D .data"
ready = { log = "ready to accept connections" }
[jobs.api]
command = "uvicorn app:app --port 8765"
ready = { port = 8765, period_ms = 200, limit_ms = 5000 }
depends_on = { db = "ready", migrate = "succeeded" }
restart = "on-failure"
max_restarts = 5
backoff_ms = 600
cwd = "backend"
[jobs.migrate]
command = "alembic upgrade head"
[jobs.worker]
command = "python worker.py"
restart = "always"
depends_on = { api = "started" }
"""


@pytest.fixture
def stack(tmp_path):
    path = tmp_path / "jobs-tui.toml"
    path.write_text(textwrap.dedent(STACK))
    return load_stack(path)


def job(job_id: str = "j1", **fields) -> JobRecord:
    base = JobRecord(
        id=job_id,
        label=fields.pop("label", "api"),
        command="uvicorn app:app",
        cwd="/src",
        pid=4242,
        status=JobStatus.RUNNING,
        exit_code=None,
        signal=None,
        started_at=1_000,
        finished_at=None,
        log_path="/tmp/j1.log",
        detached=True,
        wake=False,
        session_id="me",
    )
    return dataclasses.replace(base, **({"declared_name": "api"} | fields))


def finished(job_id: str = "j1", status=JobStatus.FAILED, code: int | None = 1, **fields):
    return job(job_id, status=status, exit_code=code, finished_at=5_000, **fields)


def test_a_declared_job_with_no_job_is_a_not_started_row(stack):
    row = not_started(stack.jobs["api"], stack, "me")
    assert isinstance(row, NotStarted) and is_not_started(row)
    assert (row.id, row.declared_name, row.session_id) == ("api", "api", "me")
    assert row.cwd.endswith("/backend") and not row.running
    assert declared_state(row) == "not started"
    assert row_label(row, "api") == "not started"  # the name is in the id column
    assert not is_not_started(job())


@pytest.mark.parametrize(
    ("fields", "state"),
    [
        ({"phase": "waiting", "waiting_for": "db, migrate"}, "waiting for db, migrate"),
        ({"phase": "starting"}, "starting"),
        ({"phase": None}, "starting"),  # running, no phase heard of yet
        ({"phase": "ready"}, "ready"),
        ({"phase": "not-ready"}, "not ready"),
        ({"phase": "restarting", "restarts": 2, "max_restarts": 5}, "restarting 2/5"),
        ({"phase": "restarting", "restarts": 3}, "restarting 3"),
    ],
)
def test_a_running_declared_job_reads_as_its_phase(fields, state):
    record = job(**fields)
    assert declared_state(record) == state
    assert row_label(record, "api") == f"api  {state}"


@pytest.mark.parametrize(
    ("record", "state"),
    [
        (finished(end_reason="crash-loop", restarts=5, last_exit=1), "crash-loop · exit 1"),
        (
            finished(end_reason="dependency", phase_detail="db: exit 3"),
            "dependency failed · db: exit 3",
        ),
        (finished(end_reason="dependency"), "dependency failed"),
        (finished(status=JobStatus.EXITED, code=0, end_reason="exit"), "exit 0"),
        (finished(code=2, end_reason="exit"), "exit 2"),
        (
            finished(status=JobStatus.KILLED, code=None, signal="SIGTERM", end_reason="kill"),
            "killed · SIGTERM",
        ),
    ],
)
def test_a_finished_declared_job_reads_as_its_end(record, state):
    assert declared_state(record) == state


def test_a_job_that_is_not_declared_has_no_state():
    plain = dataclasses.replace(job(), declared_name=None)
    assert declared_state(plain) is None
    assert row_label(plain, "build") == "build"
    assert detail_rows(plain, None, {}) == []


def test_hostile_text_from_a_record_is_sanitized():
    record = job(phase="waiting", waiting_for="db\x1b[2J\nrm")
    assert "\x1b" not in declared_state(record) and "\n" not in declared_state(record)
    ended = finished(end_reason="dependency", phase_detail="db\x1b]0;pwn\x07 died")
    assert "\x1b" not in declared_state(ended) and "\x07" not in declared_state(ended)
    rows = dict(detail_rows(job(phase_detail="\x1b[31mlog: ok\x1b[0m"), None, {}))
    assert rows["result"] == "log: ok"


def test_rows_list_not_started_ones_between_running_and_finished_jobs(stack):
    running = job("j4", phase="ready", declared_name="db", label="db")
    other = dataclasses.replace(job("j2"), declared_name=None, label="build")
    done = finished("j3", declared_name="migrate", label="migrate", status=JobStatus.EXITED)
    rows = with_declared([running, other, done], stack, "me")
    assert [r.id for r in rows] == ["j4", "j2", "api", "worker", "j3"]
    assert with_declared([running], None, "me") == [running]
    everything = [running, job("j5"), done, job("j6", declared_name="worker")]
    assert with_declared(everything, stack, "me") == everything  # each name has a job


def test_a_phase_change_repaints_the_row_and_changes_the_fingerprint():
    before, after = job(phase="starting"), job(phase="ready")
    assert shown_of(before) != shown_of(after)
    assert counts_fingerprint([before]) != counts_fingerprint([after])
    assert counts_fingerprint([job(restarts=1)]) != counts_fingerprint([job(restarts=2)])


def test_probe_texts():
    assert probe_text(Probe("log", "ready to accept connections")) == (
        'log "ready to accept connections"'
    )
    assert probe_text(Probe("port", 8765)) == "port 8765 · every 1000 ms"
    assert probe_text(Probe("http", "http://127.0.0.1:8000/health", limit_ms=3000)) == (
        "http http://127.0.0.1:8000/health · every 1000 ms · not ready after 3000 ms"
    )
    assert probe_text(Probe("exec", "pg_isready", period_ms=250)) == (
        'exec "pg_isready" · every 250 ms'
    )
    assert probe_text(None) == "none (ready once started)"


def test_restart_texts(stack):
    api, worker, db = stack.jobs["api"], stack.jobs["worker"], stack.jobs["db"]
    assert restart_text(api, job(restarts=2, last_exit=1)) == (
        "on-failure · 2 of 5 restarts · 600 ms apart · last exit 1"
    )
    assert restart_text(api, not_started(api, stack, "me")) == (
        "on-failure · 0 of 5 restarts · 600 ms apart"
    )
    assert restart_text(worker, job(restarts=1)) == "always · 1 restart · 1000 ms apart"
    assert restart_text(db, job()) == "no"
    assert restart_text(None, job(restarts=3, max_restarts=5)) == "3 of 5 restarts"


def test_depends_text_says_each_wanted_state_and_the_state_now(stack):
    api = stack.jobs["api"]
    states = {"db": "starting", "migrate": "not started"}
    assert depends_text(api, states) == (
        "db ready (is starting) · migrate succeeded (is not started)"
    )
    assert depends_text(api, {}) == "db ready · migrate succeeded"


def test_detail_rows_of_a_running_and_a_not_started_job(stack):
    api = stack.jobs["api"]
    record = job(phase="ready", phase_detail="port 8765 open", restarts=1, last_exit=1)
    old_db = finished(
        "j0", declared_name="db", status=JobStatus.KILLED, code=None, signal="SIGTERM"
    )
    states = name_states([job("j3", phase="ready", declared_name="db"), record, old_db])
    assert states == {"db": "ready", "api": "ready"}  # a name's first row: its current job
    assert detail_rows(record, api, {"db": "ready", "migrate": "exit 0"}) == [
        ("state", "ready"),
        ("probe", "port 8765 · every 200 ms · not ready after 5000 ms"),
        ("result", "port 8765 open"),
        ("restart", "on-failure · 1 of 5 restarts · 600 ms apart · last exit 1"),
        ("depends", "db ready (is ready) · migrate succeeded (is exit 0)"),
    ]
    pending = not_started(stack.jobs["db"], stack, "me")
    assert detail_rows(pending, stack.jobs["db"], {}) == [
        ("state", "not started"),
        ("probe", 'log "ready to accept connections"'),
        ("restart", "no"),
    ]
    assert dict(detail_rows(job(), api, {}))["result"] == "nothing yet"


def test_up_and_down_notes():
    db = job("j4", declared_name="db")
    api = job("j5")
    text, failed = up_note(UpResult(started=[db, api], running=[job("j2", declared_name="x")]))
    assert (text, failed) == ("Started db (j4), api (j5) · already running: x (j2)", False)
    text, failed = up_note(UpResult(failed=[("worker", "not started: api did not start")]))
    assert failed and text == "Not started: worker (not started: api did not start)"
    assert up_note(UpResult()) == ("Nothing to start.", False)
    stopped = [KillResult(api, True, "SIGTERM"), KillResult(db, True, "SIGTERM")]
    assert down_note(DownResult(stopped, ["worker"])) == (
        "Stopped api (j5), db (j4), dependents first · not running: worker"
    )
    assert down_note(DownResult([], ["db"])) == "Nothing stopped: no declared job was running."
