"""The env file a restart reads: 0600, never through a planted link or FIFO, values exact."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jobs_tui.engine import JobError
from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.engine.registry.paths import RegistryPaths
from jobs_tui.engine.session.restarts import Saved, load, save


def record(job_id: str, names: tuple[str, ...]) -> JobRecord:
    return JobRecord(
        job_id, "x", "x", "/", None, JobStatus.EXITED, 0, None, 1, 2, "/r/x.log", False,
        False, "s", env_names=names,
    )  # fmt: skip


def test_values_round_trip_exactly_in_a_0600_file(tmp_path: Path):
    paths = RegistryPaths(tmp_path)
    env = {"TOKEN": "a b\tc'\"$x\n", "RAW": "byte \udcff"}
    save(paths, "j1", env, 120, 40)
    assert oct(paths.env("j1").stat().st_mode & 0o777) == "0o600"
    assert load(paths, record("j1", ("TOKEN", "RAW"))) == Saved(env, 120, 40)


def test_a_planted_link_or_fifo_is_refused_and_left_alone(tmp_path: Path):
    paths = RegistryPaths(tmp_path)
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    os.symlink(target, paths.env("j1"))
    with pytest.raises(OSError):
        save(paths, "j1", {"A": "1"}, 80, 24)
    assert target.read_text() == "keep"
    os.mkfifo(paths.env("j2"))
    with pytest.raises(OSError):  # at once: no reader is waited for
        save(paths, "j2", {"A": "1"}, 80, 24)
    with pytest.raises(JobError):
        load(paths, record("j1", ("A",)))


def test_a_missing_file_is_nothing_to_restore_unless_names_say_there_were_values(tmp_path):
    paths = RegistryPaths(tmp_path)
    assert load(paths, record("j3", ())) == Saved({})
    with pytest.raises(JobError) as gone:
        load(paths, record("j3", ("API_KEY",)))
    assert "API_KEY" in str(gone.value) and gone.value.field == "id"
