"""regfiles: a held registry directory is reached by fd, whatever its path names later."""

from __future__ import annotations

import os

import pytest

from jobs_tui.engine.registry import regfiles
from jobs_tui.engine.registry.paths import RegistryPaths
from jobs_tui.engine.registry.safefiles import read_regular
from jobs_tui.engine.registry.store import quarantine, write_bytes_atomic


@pytest.fixture
def swapped(tmp_path):
    """`reg` held, then renamed to `reg.real`, a new `reg` (ours, 0700) in its place with
    `a.json`, `j1.log` and `x.lock` links to a victim; yields (reg, real, victim, held)."""
    reg = tmp_path / "reg"
    reg.mkdir(mode=0o700)
    (reg / "j1.log").write_bytes(b"real log\n")
    held = regfiles.hold(reg)
    real = tmp_path / "reg.real"
    os.rename(reg, real)
    reg.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_bytes(b"victim\n")
    for name in ("a.json", "j1.log", "x.lock"):
        os.symlink(victim, reg / name)
    yield reg, real, victim, held
    regfiles.release(held)


def test_writes_renames_and_unlinks_land_in_the_directory_held(swapped):
    reg, real, victim, _ = swapped
    write_bytes_atomic(reg / "a.json", b"{}")
    fd = regfiles.open_file(reg / "x.lock", os.O_RDWR | os.O_CREAT)
    os.close(fd)
    regfiles.rename(reg / "a.json", reg / "b.json")
    assert quarantine(reg / "b.json") is not None
    assert regfiles.unlink(reg / "x.lock")
    assert victim.read_bytes() == b"victim\n"
    assert sorted(os.listdir(reg)) == ["a.json", "j1.log", "x.lock"]  # untouched
    names = sorted(os.listdir(real))
    assert names[0].startswith("b.json.corrupt-") and names[1:] == ["j1.log"]
    assert sorted(regfiles.listdir(reg)) == names
    with regfiles.scandir(reg) as scan:
        assert sorted(e.name for e in scan) == names


def test_reads_and_paths_from_records_resolve_in_the_directory_held(swapped):
    reg, real, _, _ = swapped
    assert read_regular(reg / "j1.log", 100) == b"real log\n"
    inside = RegistryPaths(reg).inside(str(reg / "j1.log"))
    assert inside is not None and read_regular(inside, 100) == b"real log\n"
    assert regfiles.stat_dir(reg).st_ino == os.stat(real).st_ino


def test_released_directories_are_reached_by_path_again(tmp_path):
    reg = tmp_path / "reg"
    reg.mkdir(mode=0o700)
    held = regfiles.hold(reg)
    assert regfiles.held(reg) is held and regfiles.where(reg / "f")[0] == held.fd
    regfiles.release(held)
    assert held.fd == -1 and regfiles.held(reg) is None
    assert regfiles.where(reg / "f") == (None, str(reg / "f"))


def test_a_directory_removed_since_it_was_held_is_not_used_by_the_next_holder(tmp_path):
    reg = tmp_path / "reg"
    reg.mkdir(mode=0o700)
    stale = regfiles.hold(reg)  # a session that never closed
    os.rmdir(reg)
    reg.mkdir(mode=0o700)
    fresh = regfiles.hold(reg)
    try:
        assert regfiles.held(reg) is fresh
        write_bytes_atomic(reg / "a.json", b"{}")
        assert os.listdir(reg) == ["a.json"]
    finally:
        regfiles.release(fresh)
        regfiles.release(stale)
