"""Issue 22 §2: the socket directory used when XDG_RUNTIME_DIR is unset and the registry
path is too long cannot be taken by another user first: a planted `/tmp/jobs-tui-<uid>`
(or a planted salted one) costs no start, and no socket ever goes into it.

The base of those names (`/tmp` for real) comes from JOBS_TUI_RUNTIME_FALLBACK here, so
these tests never touch the machine's own `/tmp/jobs-tui-*`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from jobs_tui.engine.registry.paths import MAX_SOCKET_PATH, RegistryPaths
from jobs_tui.engine.registry.runtimedir import ENV_RUNTIME_FALLBACK, SOCKET_SALT, read_salt

from .conftest import Cli, until

OTHER_UID = 65534


@pytest.fixture
def base(monkeypatch):
    """A short, sticky, world-writable stand-in for /tmp."""
    path = Path(tempfile.mkdtemp(prefix="jt", dir="/tmp"))
    os.chmod(path, 0o1777)
    monkeypatch.setenv(ENV_RUNTIME_FALLBACK, str(path))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def plant(path: Path) -> Path:
    """What another user does first: their own 0700 directory under our name."""
    path.mkdir(mode=0o700)
    os.chown(path, OTHER_UID, OTHER_UID)
    return path


def long_registry(tmp_path: Path) -> Path:
    registry = tmp_path / ("d" * 100) / "reg"
    assert len(os.fsencode(registry / "j1.sock")) > MAX_SOCKET_PATH
    return registry


def sockets_under(path: Path) -> list[str]:
    return [str(p) for p in path.rglob("*.sock")]


def run_a_job(cli: Cli, registry: Path) -> Path:
    job = cli.ok("start", "--json", "--", "sleep 30").json()["job"]["id"]
    sock = RegistryPaths(registry).socket(job)
    assert until(sock.exists), f"no socket at {sock}"
    killed = cli("kill", job)
    assert killed.code == 0, killed
    return sock


def test_a_planted_fallback_directory_costs_no_start(tmp_path, base):
    uid = os.geteuid()
    planted = plant(base / f"jobs-tui-{uid}")
    registry = long_registry(tmp_path)
    cli = Cli(str(registry), str(tmp_path))
    try:
        sock = run_a_job(cli, registry)
    finally:
        cli("clear", "--all")
    assert sockets_under(planted) == [] and os.listdir(planted) == []
    salt = read_salt(registry)
    assert salt is not None and sock.parent == base / f"jobs-tui-{uid}-{salt}"
    st = os.lstat(sock.parent)
    assert st.st_uid == uid and st.st_mode & 0o777 == 0o700


def test_a_planted_salted_directory_makes_a_fresh_one(tmp_path, base):
    """Should someone learn the salt and take its directory, the next start renews it."""
    registry = long_registry(tmp_path)
    cli = Cli(str(registry), str(tmp_path))
    try:
        first = run_a_job(cli, registry)
        cli.ok("clear", "--all")
        shutil.rmtree(first.parent)
        taken = plant(first.parent)
        second = run_a_job(cli, registry)
    finally:
        cli("clear", "--all")
    assert second.parent != taken and os.listdir(taken) == []
    assert (registry / SOCKET_SALT).stat().st_mode & 0o777 == 0o600


def test_asking_where_a_socket_would_be_writes_nothing(tmp_path, base):
    registry = long_registry(tmp_path)
    registry.mkdir(parents=True)
    sock = RegistryPaths(registry).socket("j1")
    assert os.listdir(registry) == [] and os.listdir(base) == []
    assert not sock.parent.exists()
