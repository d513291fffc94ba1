"""regdir: a directory opened once and verified; names resolved in it, never through links."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from jobs_tui.engine.shim.logwriter import LogWriter
from jobs_tui.engine.shim.regdir import RegDir, UnsafeDirectory

OTHER_UID = 65534


def private(path: Path) -> Path:
    path.mkdir(mode=0o700)
    return path


def swap(directory: Path) -> Path:
    """Rename `directory` away and make a fresh one in its place; the real one's new path."""
    moved = directory.with_name(directory.name + ".real")
    os.rename(directory, moved)
    private(directory)
    return moved


@pytest.mark.parametrize(
    ("mode", "uid", "why"),
    [
        (0o770, None, "is writable by group or others"),
        (0o702, None, "is writable by group or others"),
        (0o700, OTHER_UID, f"belongs to another user (uid {OTHER_UID})"),
    ],
)
def test_a_directory_others_can_write_or_own_is_refused(tmp_path, mode, uid, why):
    target = private(tmp_path / "reg")
    os.chmod(target, mode)
    if uid is not None:
        os.chown(target, uid, -1)
    with pytest.raises(UnsafeDirectory, match=re.escape(why)):
        RegDir.open(str(target))


def test_not_a_directory_is_refused(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(UnsafeDirectory, match="not a directory"):
        RegDir.open(str(tmp_path / "f"))


def test_a_symlink_to_the_directory_is_resolved_once(tmp_path):
    real = private(tmp_path / "real")
    os.symlink(real, tmp_path / "link")
    directory = RegDir.open(str(tmp_path / "link"))
    try:
        directory.write_atomic("x", b"1")
        os.unlink(tmp_path / "link")
        os.symlink(private(tmp_path / "other"), tmp_path / "link")
        directory.write_atomic("y", b"2")
    finally:
        directory.close()
    assert sorted(os.listdir(real)) == ["x", "y"] and os.listdir(tmp_path / "other") == []


def test_after_a_swap_every_operation_stays_in_the_directory_checked(tmp_path):
    reg = private(tmp_path / "reg")
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    directory = RegDir.open(str(reg))
    try:
        real = swap(reg)
        for name in ("a", "a.tmp", "b"):
            os.symlink(victim, reg / name)
        directory.write_atomic("a", b"new")
        fd = directory.open_file("b", os.O_WRONLY | os.O_CREAT)
        os.write(fd, b"bee")
        os.close(fd)
        directory.rename("b", "c")
        assert directory.unlink("a")
        assert directory.read_file("c", 10) == b"bee"
    finally:
        directory.close()
    assert victim.read_bytes() == b"keep"
    assert os.listdir(real) == ["c"]
    assert sorted(os.listdir(reg)) == ["a", "a.tmp", "b"]  # the planted links, untouched


def test_planted_links_fifos_and_others_files_are_refused_not_followed(tmp_path):
    reg = private(tmp_path / "reg")
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    os.symlink(victim, reg / "link")
    os.symlink(tmp_path / "nowhere", reg / "dangling")
    os.mkfifo(reg / "fifo")
    (reg / "theirs").write_bytes(b"x")
    os.chown(reg / "theirs", OTHER_UID, -1)
    directory = RegDir.open(str(reg))
    try:
        for name in ("link", "dangling"):
            with pytest.raises(OSError):
                directory.open_file(name, os.O_WRONLY | os.O_CREAT)
        started = time.monotonic()
        with pytest.raises(OSError):  # at once: ENXIO (no reader), never a blocked open
            directory.open_file("fifo", os.O_WRONLY | os.O_CREAT)
        with pytest.raises(OSError):
            directory.read_file("fifo", 10)
        assert time.monotonic() - started < 1
        with pytest.raises(PermissionError):
            directory.read_file("theirs", 10)
    finally:
        directory.close()
    assert victim.read_bytes() == b"keep" and not (tmp_path / "nowhere").exists()


def test_temporary_names_are_unguessable(tmp_path):
    reg = private(tmp_path / "reg")
    directory = RegDir.open(str(reg))
    seen: list[str] = []
    real_rename = os.rename

    def spy(src, dst, **kw):
        seen.append(src)
        return real_rename(src, dst, **kw)

    try:
        os.rename = spy
        directory.write_atomic("j1.status", b"0")
        directory.write_atomic("j1.status", b"1")
    finally:
        os.rename = real_rename
        directory.close()
    assert len(set(seen)) == 2
    for name in seen:
        assert name.startswith(".j1.status.") and name.endswith(".tmp")
        assert len(name.split(".")[-2]) == 16  # 8 random bytes in hex
    assert os.listdir(reg) == ["j1.status"]


def test_a_log_writer_keeps_rotating_and_tailing_its_own_directory_after_a_swap(tmp_path):
    reg = private(tmp_path / "reg")
    secret = tmp_path / "secret"
    secret.write_bytes(b"SECRET")
    writer = LogWriter(str(reg / "j1.log"), str(reg / "j1.log.1"), 8)
    try:
        writer.write(b"12345678")
        real = swap(reg)
        os.symlink(secret, reg / "j1.log.1")
        os.symlink(tmp_path / "created", reg / "j1.log")
        writer.write(b"abc")  # rotates: in the real directory
        assert writer.reopen_if_unlinked() is False
        assert writer.tail(100) == b"12345678abc"
    finally:
        writer.close()
    assert (real / "j1.log.1").read_bytes() == b"12345678"
    assert (real / "j1.log").read_bytes() == b"abc"
    assert secret.read_bytes() == b"SECRET" and not (tmp_path / "created").exists()


def test_bind_leaves_the_cwd_where_it_was(tmp_path):
    import socket

    reg = private(tmp_path / "reg")
    here = os.getcwd()
    directory = RegDir.open(str(reg))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        directory.bind(sock, "j1.sock")
        assert os.getcwd() == here
        assert (reg / "j1.sock").is_socket()
    finally:
        sock.close()
        directory.close()


def test_sessions_refuse_to_read_or_write_in_a_directory_swapped_for_another_users(tmp_path):
    """The session side: each open checks the directory it opens in (safefiles, store)."""
    from jobs_tui.engine.registry.safefiles import UnsafeFile, read_regular
    from jobs_tui.engine.registry.store import write_json_atomic

    reg = private(tmp_path / "reg")
    write_json_atomic(reg / "registry-x.json", {"mine": True})
    assert json.loads(read_regular(reg / "registry-x.json", 100)) == {"mine": True}
    real = swap(reg)
    (reg / "registry-x.json").write_bytes(b'{"planted": true}')
    os.chown(reg, OTHER_UID, -1)
    with pytest.raises(UnsafeFile, match=f"its directory {reg} belongs to another user"):
        read_regular(reg / "registry-x.json", 100)
    with pytest.raises(UnsafeDirectory):
        write_json_atomic(reg / "registry-x.json", {"mine": 2})
    assert (reg / "registry-x.json").read_bytes() == b'{"planted": true}'
    assert os.listdir(reg) == ["registry-x.json"]
    os.chmod(reg, 0o777)
    os.chown(reg, os.geteuid(), -1)
    with pytest.raises(UnsafeFile, match="writable by group or others"):
        read_regular(reg / "registry-x.json", 100)
    assert json.loads((real / "registry-x.json").read_bytes()) == {"mine": True}


@pytest.mark.parametrize("plant", ["link", "dangling", "fifo", "theirs"])
def test_a_log_name_taken_by_something_else_is_replaced_by_our_file(tmp_path, plant):
    """Only we (or a job of ours) can plant in our directory; the shim still never writes
    through the plant, and keeps logging instead of failing."""
    reg = private(tmp_path / "reg")
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    live = reg / "j1.log"
    writer = LogWriter(str(live), str(reg / "j1.log.1"), 0)
    try:
        writer.write(b"one\n")
        os.unlink(live)
        if plant == "link":
            os.symlink(victim, live)
        elif plant == "dangling":
            os.symlink(tmp_path / "nowhere", live)
        elif plant == "fifo":
            os.mkfifo(live)
        else:
            live.write_bytes(b"x")
            os.chown(live, OTHER_UID, -1)
        assert writer.reopen_if_unlinked() is True
        writer.write(b"two\n")
    finally:
        writer.close()
    assert live.is_file() and not live.is_symlink() and live.read_bytes() == b"two\n"
    assert victim.read_bytes() == b"keep" and not (tmp_path / "nowhere").exists()
