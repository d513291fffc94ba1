"""`restartOf` and `envNames` in registry records: written only when set, never trusted blindly."""

from __future__ import annotations

from jobs_tui.engine.records.model import JobRecord, JobStatus


def record(**extra) -> JobRecord:
    return JobRecord(
        id="j2",
        label="x",
        command="x",
        cwd="/",
        pid=None,
        status=JobStatus.RUNNING,
        exit_code=None,
        signal=None,
        started_at=1,
        finished_at=None,
        log_path="/r/j2.log",
        detached=False,
        wake=False,
        session_id="s",
        **extra,
    )


def test_restart_of_and_env_names_round_trip_as_json():
    rec = record(restart_of="j1", env_names=("API_KEY", "CI"))
    data = rec.to_json()
    assert data["restartOf"] == "j1" and data["envNames"] == ["API_KEY", "CI"]
    back = JobRecord.from_json(data)
    assert back.restart_of == "j1" and back.env_names == ("API_KEY", "CI")
    assert "envNames" not in back.unknown and "restartOf" not in back.unknown


def test_a_plain_record_has_neither_key():
    data = record().to_json()
    assert "restartOf" not in data and "envNames" not in data
    back = JobRecord.from_json(data)
    assert back.restart_of is None and back.env_names == ()


def test_mistyped_values_from_a_file_are_ignored_not_trusted():
    data = record().to_json()
    for restart_of, names in (("../etc", ["A"]), (5, "A"), ("j1", [1, 2]), ("j1", ["x"] * 101)):
        back = JobRecord.from_json({**data, "restartOf": restart_of, "envNames": names})
        assert back.restart_of in (None, "j1")
        assert back.env_names in ((), ("A",))
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            assert back.env_names == ()
