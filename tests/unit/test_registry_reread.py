"""A session does not parse its own file again after writing it (issue 10: the screen with
50 printing jobs re-read its 200 records every second), yet still reads it when another
process of the session wrote it, and still reports it when it is corrupt."""

from __future__ import annotations

import os

import pytest

from jobs_tui.engine.config import Config
from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.engine.registry import store
from jobs_tui.engine.registry.paths import RegistryPaths
from jobs_tui.engine.registry.table import Registry

pytestmark = pytest.mark.timeout(30)


def record(n: int, session: str) -> JobRecord:
    return JobRecord(
        id=f"j{n}", label="x", command="c", cwd="/", pid=None, status=JobStatus.EXITED,
        exit_code=0, signal=None, started_at=n, finished_at=n, log_path="/x",
        detached=False, wake=False, session_id=session,
    )  # fmt: skip


@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    names: list[str] = []
    real = store.parse_registry

    def spy(raw, path, previous=None):
        names.append(path.name)
        return real(raw, path, previous)

    monkeypatch.setattr(store, "parse_registry", spy)
    return names


def test_a_file_we_just_wrote_is_not_parsed_again(tmp_path, parsed):
    root = tmp_path / "reg"
    root.mkdir(mode=0o700)
    paths = RegistryPaths(str(root))
    ours, other = Registry(paths, "ours", Config()), Registry(paths, "other", Config())
    other.add(record(1, "other"))
    other.persist()
    ours.add(record(2, "ours"))
    ours.persist()
    own = ours.own_path.name
    ours.refresh_peers(0, force=True)
    assert ours.get("j1") is not None  # the peer's file was read
    parsed.clear()
    for n in range(3, 6):  # the screen's loop: a change, a write, a forced re-read
        ours.add(record(n, "ours"))
        ours.persist()
        ours.refresh_peers(0, force=True)
    assert own not in parsed

    # another process of the same session writes our file: it is read again
    twin = Registry(paths, "ours", Config())
    twin.refresh_peers(0, force=True)
    twin.add(record(9, "ours"))
    twin.persist()
    parsed.clear()
    ours.refresh_peers(0, force=True)
    assert own in parsed and ours.get("j9") is not None


def test_our_file_corrupted_by_someone_is_still_reported(tmp_path):
    root = tmp_path / "reg"
    root.mkdir(mode=0o700)
    ours = Registry(RegistryPaths(str(root)), "ours", Config())
    ours.add(record(1, "ours"))
    ours.persist()
    fd = os.open(ours.own_path, os.O_WRONLY | os.O_TRUNC)
    os.write(fd, b"{not json")
    os.close(fd)
    ours.refresh_peers(0, force=True)
    assert any(ours.own_path.name in p for p in ours.take_problems())
