"""Issue 22 §2: a registry directory swapped under a running shim steers none of its
writes or reads (the shim holds the directory it verified, by fd).

Each test starts a real job, renames the registry directory away, makes a new one in
its place with symlinks planted where the shim will write or read, lets the job end, and
checks that every victim file is byte-identical and nothing appeared at a dangling
link's target, while the exit files reached the real (renamed) directory.
"""

from __future__ import annotations

import glob
import json
import os
import time
from pathlib import Path

import pytest

from .conftest import Cli, until


def shim_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def shim_pid(registry: Path) -> int:
    for name in glob.glob(str(registry / "registry-*.json")):
        for job in json.loads(Path(name).read_text())["jobs"]:
            if job.get("shimPid"):
                return int(job["shimPid"])
    raise AssertionError("no shim pid recorded")


@pytest.fixture
def swapped(tmp_path: Path):
    """Start `j1` (it waits for a go file), swap its registry; yield (new reg, go, old reg)."""
    parent = tmp_path / "p"
    parent.mkdir(mode=0o700)
    registry = parent / "reg"
    work = tmp_path / "work"
    work.mkdir()
    go = tmp_path / "go"
    cli = Cli(str(registry), str(work))
    script = f"echo first; until [ -e {go} ]; do sleep 0.02; done; echo last-words"
    cli.ok("start", "--", script)
    pid = shim_pid(registry)
    assert until(
        lambda: (registry / "j1.log").exists() and b"first" in (registry / "j1.log").read_bytes()
    )
    moved = parent / "reg.real"
    os.rename(registry, moved)
    registry.mkdir(mode=0o700)
    state = {"pid": pid, "new": registry, "old": moved, "go": go}
    yield state
    go.touch()
    assert until(lambda: not shim_alive(pid), 20)
    if registry.exists():
        os.rename(registry, parent / "reg.planted")
    os.rename(moved, registry)
    cli("clear", "--all", timeout=30)


def finish(state: dict) -> None:
    state["go"].touch()
    assert until(lambda: not shim_alive(state["pid"]), 20), "the shim did not end"


def victim(tmp_path: Path, name: str, mode: int, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    os.chmod(path, mode)
    return path


def assert_exit_files_in_real_directory(state: dict) -> None:
    old = state["old"]
    assert (old / "j1.status").read_bytes() == b"0"
    assert json.loads((old / "j1.end").read_bytes())["exitStatus"] == 0
    assert b"last-words" in (old / "j1.log").read_bytes()


@pytest.mark.parametrize("which", ["status", "end"])
def test_planted_temporary_file_link_is_not_written_through(tmp_path, swapped, which):
    """`reg/j1.<which>.<shimpid>.tmp -> VICTIM`: the victim stays byte-identical."""
    data = b"precious victim bytes\n"
    target = victim(tmp_path, f"victim-{which}", 0o644, data)
    os.symlink(target, swapped["new"] / f"j1.{which}.{swapped['pid']}.tmp")
    finish(swapped)
    assert target.read_bytes() == data
    assert_exit_files_in_real_directory(swapped)


def test_planted_rotation_link_is_not_read_into_the_end_message(tmp_path, swapped):
    """`j1.log.1 -> a 0600 secret` and `j1.end.<pid>.tmp -> her 0666 file`: the secret is
    never read into the end message's tail, and her file is not written."""
    secret = victim(tmp_path, "secret", 0o600, b"TOP-SECRET-VALUE\n")
    hers = victim(tmp_path, "hers", 0o666, b"")
    os.symlink(secret, swapped["new"] / "j1.log.1")
    os.symlink(hers, swapped["new"] / f"j1.end.{swapped['pid']}.tmp")
    finish(swapped)
    assert hers.read_bytes() == b""
    assert secret.read_bytes() == b"TOP-SECRET-VALUE\n"
    end = (swapped["old"] / "j1.end").read_bytes()
    assert b"TOP-SECRET" not in end
    assert_exit_files_in_real_directory(swapped)


def test_dangling_log_link_is_never_created_or_written(tmp_path, swapped):
    """A dangling `j1.log -> /root-only-dir/x`: nothing appears at x, no output goes there."""
    hidden = tmp_path / "root-only-dir"
    hidden.mkdir(mode=0o700)
    target = hidden / "x"
    os.symlink(target, swapped["new"] / "j1.log")
    time.sleep(0.6)  # the shim looks at its live log every 0.25 s (CHECK_S)
    finish(swapped)
    assert not os.path.lexists(target)
    assert_exit_files_in_real_directory(swapped)
