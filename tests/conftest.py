"""Shared fixtures: every test gets its own registry directory and config; no test touches ~."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("JOBS_TUI_CONFIG", str(home / "config.toml"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.delenv("JOBS_TUI_REGISTRY_DIR", raising=False)
    monkeypatch.delenv("JOBS_TUI_SESSION", raising=False)


@pytest.fixture
def registry_dir(tmp_path: os.PathLike[str]) -> str:
    path = os.path.join(os.fspath(tmp_path), "registry")
    return path


@pytest.fixture
def log_dir(tmp_path: os.PathLike[str]) -> str:
    """A directory for hand-made logs (fakes and snapshots)."""
    path = os.path.join(os.fspath(tmp_path), "logs")
    os.makedirs(path)
    return path
