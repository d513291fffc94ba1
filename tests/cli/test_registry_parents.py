"""Issue 22 §2: a registry directory whose parents another user can write is refused,
naming the directory, before anything is created (as ssh refuses loose permissions);
a sticky parent owned by root or us (`/tmp`) is fine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jobs_tui.engine.registry.paths import LooseParent, ensure_private_dir, loose_parent

from .conftest import Cli

OTHER_UID = 65534  # nobody


def make_dir(path: Path, mode: int, uid: int | None = None) -> Path:
    path.mkdir()
    os.chmod(path, mode)  # explicitly: the umask takes bits from mkdir's mode
    if uid is not None:
        os.chown(path, uid, -1)
    return path


def test_start_under_a_world_writable_parent_fails_naming_it_and_creates_nothing(tmp_path):
    parent = make_dir(tmp_path / "p", 0o777)
    cli = Cli(str(parent / "reg"), str(tmp_path))
    result = cli("start", "--", "true")
    assert result.code != 0
    assert f"its parent {parent} is writable by other users (mode 0777, not sticky)" in result.err
    assert str(parent / "reg") in result.err
    assert os.listdir(parent) == []
    json_result = cli("start", "--json", "--", "true")
    assert json_result.code != 0 and str(parent) in json_result.json()["error"]
    assert os.listdir(parent) == []


def test_start_under_a_sticky_parent_of_ours_works(tmp_path):
    parent = make_dir(tmp_path / "t", 0o1777)
    cli = Cli(str(parent / "deeper" / "reg"), str(tmp_path))
    try:
        cli.ok("start", "--", "echo fine")
        assert cli.ok("logs", "j1").out == "fine\n"
        assert os.stat(parent / "deeper").st_mode & 0o777 == 0o700
    finally:
        cli("clear", "--all")


@pytest.mark.parametrize(
    ("mode", "uid", "why"),
    [
        (0o777, None, "is writable by other users (mode 0777, not sticky)"),
        (0o770, None, "is writable by other users (mode 0770, not sticky)"),
        (0o1777, OTHER_UID, f"is owned by uid {OTHER_UID}, not by you or root"),
        (0o755, OTHER_UID, f"is owned by uid {OTHER_UID}, not by you or root"),
    ],
)
def test_loose_parents_are_refused_anywhere_in_the_chain(tmp_path, mode, uid, why):
    loose = make_dir(tmp_path / "loose", mode, uid)
    inner = make_dir(loose / "inner", 0o700)
    target = inner / "a" / "reg"
    assert loose_parent(target) == f"its parent {loose} {why}"
    with pytest.raises(LooseParent) as caught:
        ensure_private_dir(target)
    assert str(target) in str(caught.value) and str(loose) in caught.value.strerror
    assert os.listdir(inner) == []


def test_a_symlink_in_a_loose_directory_is_refused_too(tmp_path):
    """The chain as written counts: whoever can write `loose` can repoint `loose/link`."""
    good = make_dir(tmp_path / "good", 0o700)
    loose = make_dir(tmp_path / "loose", 0o777)
    os.symlink(good, loose / "link")
    assert loose_parent(loose / "link" / "reg") is not None
    assert loose_parent(good / "reg") is None


def test_tmp_itself_and_pytest_dirs_are_fine(tmp_path):
    assert loose_parent(tmp_path / "reg") is None
    assert loose_parent("/tmp/jobs-tui-test-nonexistent/reg") is None


def test_a_registry_that_is_a_symlink_into_a_loose_directory_is_refused(tmp_path):
    loose = make_dir(tmp_path / "loose", 0o777)
    real = make_dir(loose / "reg", 0o700)
    home = make_dir(tmp_path / "home", 0o700)
    os.symlink(real, home / "reg")
    assert loose_parent(home / "reg") == (
        f"its parent {loose} is writable by other users (mode 0777, not sticky)"
    )
