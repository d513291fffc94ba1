"""The declared job's pieces that need no process (issue 26): the marker line, the log
probe across chunk boundaries, URLs, the start spec's files, the record's fields."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobs_tui.engine.config import Config
from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.engine.registry.paths import RegistryPaths, job_file_number
from jobs_tui.engine.session.launch import start_spec
from jobs_tui.engine.session.shimnews import apply_phase
from jobs_tui.engine.shim.declared import marker_line
from jobs_tui.engine.shim.probes import LogProbe, split_url


def test_the_marker_line_is_exactly_the_issues():
    assert marker_line(2, 5, 1, 0.43) == "── restart 2 of 5 · exit 1 after 0.4s ──\n"
    assert marker_line(3, None, -9, 12.0) == "── restart 3 · SIGKILL after 12.0s ──\n"


def test_the_log_probe_matches_across_chunks_and_only_once():
    probe = LogProbe("ready to accept")
    assert not probe.feed(b"booting\nready t")
    assert not probe.feed(memoryview(b"o acc"))
    assert probe.feed(b"ept connections\n")
    probe.reset()
    assert not probe.feed(b"ready to")


@pytest.mark.parametrize(
    ("url", "parts"),
    [
        ("http://127.0.0.1:8000/health", (False, "127.0.0.1", 8000, "/health")),
        ("https://localhost/", (True, "localhost", None, "/")),
        ("http://[::1]:9/x?y=1", (False, "::1", 9, "/x?y=1")),
        ("http://host", (False, "host", None, "/")),
    ],
)
def test_urls(url, parts):
    assert split_url(url) == parts


def test_a_url_that_is_not_http_is_refused():
    with pytest.raises(ValueError):
        split_url("ftp://x/")


def _record(paths: RegistryPaths, job_id: str) -> JobRecord:
    return JobRecord(
        id=job_id,
        label="x",
        command="true",
        cwd="/",
        pid=None,
        status=JobStatus.RUNNING,
        exit_code=None,
        signal=None,
        started_at=0,
        finished_at=None,
        log_path=str(paths.log(job_id)),
        detached=True,
        wake=False,
        session_id="s",
    )


def test_the_start_spec_names_every_file_a_declared_shim_touches(tmp_path: Path):
    paths = RegistryPaths(tmp_path)
    declared = {
        "name": "api",
        "depends": [{"id": "j3", "name": "db", "until": "ready"}],
        "kill_grace_ms": 1234,
    }
    spec = start_spec(_record(paths, "j4"), paths, Config(), None, "m", 80, 24, declared)
    assert spec["killGraceMs"] == 1234
    assert spec["declared"]["files"] == {
        "started": str(paths.started("j4")),
        "ready": str(paths.ready("j4")),
        "end": str(paths.end("j4")),
    }
    assert spec["declared"]["depends"][0]["files"]["ready"] == str(paths.ready("j3"))
    assert "files" not in declared["depends"][0]  # the caller's declaration is not changed
    assert {paths.started("j4"), paths.ready("j4")} <= set(paths.job_files("j4"))
    assert job_file_number("j4.ready") == 4 and job_file_number("j4.started") == 4


def test_the_phase_reaches_the_record_and_its_json(tmp_path: Path):
    paths = RegistryPaths(tmp_path)
    record = _record(paths, "j4")
    event = {"phase": "waiting", "waitingFor": ["db", "cache"], "restarts": 0, "name": "api"}
    assert apply_phase(record, event)
    assert not apply_phase(record, event)  # nothing changed the second time
    assert apply_phase(record, {"phase": "restarting", "restarts": 2, "lastExit": 1, "pid": 99})
    assert (record.pid, record.restarts, record.last_exit, record.waiting_for) == (99, 2, 1, None)
    data = record.to_json()
    assert (data["name"], data["phase"], data["restarts"], data["lastExit"]) == (
        "api",
        "restarting",
        2,
        1,
    )
    again = JobRecord.from_json(data)
    assert (again.declared_name, again.phase, again.restarts, again.last_exit) == (
        "api",
        "restarting",
        2,
        1,
    )
    plain = _record(paths, "j5").to_json()
    assert not {"name", "phase", "waitingFor", "restarts", "lastExit"} & set(plain)
    assert not apply_phase(_record(paths, "j5"), {"ev": "output"})


def test_a_log_probe_sees_a_line_only_once_it_is_in_the_log(tmp_path):
    """The shim's log observer (a declared job's `ready = { log = ... }`) is called after
    the write: whoever hears "ready" and reads the log finds the line there."""
    from jobs_tui.engine.shim.logwriter import LogWriter

    live = tmp_path / "j1.log"
    writer = LogWriter(str(live), str(live) + ".1", 1 << 20)
    seen: list[bytes] = []
    writer.observer = lambda view: seen.append(live.read_bytes())
    writer.write(b"db: ready to accept connections\n")
    assert seen == [b"db: ready to accept connections\n"]
