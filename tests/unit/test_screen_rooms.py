"""The screens' rooms (issue 25): a folder per part of the screen, one way between them.

import-linter holds the direction (pyproject's layers contract, run by
tests/unit/test_layering.py); this holds the folders to it: every module in a room, every
room a package that ships, no room over about 20 modules.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCREENS = ROOT / "screens"
ROOMS = ("jobs", "log", "terminal", "widgets")
MAX_MODULES = 20


def config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_contract_names_the_rooms_and_their_direction():
    (layers,) = [
        c
        for c in config()["tool"]["importlinter"]["contracts"]
        if c["type"] == "layers" and c.get("containers") == ["jobs_tui.screens"]
    ]
    # the list opens the panes; the panes know neither each other nor the list; all share
    assert layers["layers"] == ["jobs", "log | terminal", "widgets"]
    assert "ignore_imports" not in layers


def test_every_module_lives_in_a_room_of_at_most_20():
    assert sorted(p.name for p in SCREENS.glob("*.py")) == ["__init__.py"]
    folders = sorted(p.name for p in SCREENS.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == sorted(ROOMS)
    for room in ROOMS:
        modules = [p for p in (SCREENS / room).glob("*.py") if p.name != "__init__.py"]
        assert (SCREENS / room / "__init__.py").is_file(), room
        assert 0 < len(modules) <= MAX_MODULES, (room, len(modules))


def test_every_room_ships_in_a_wheel():
    setuptools = config()["tool"]["setuptools"]
    for room in ROOMS:
        package = f"jobs_tui.screens.{room}"
        assert package in setuptools["packages"], package
        assert setuptools["package-dir"][package] == f"screens/{room}", package
