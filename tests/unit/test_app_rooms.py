"""The app's rooms (issue 25): a folder per door, and what they share at app's top.

import-linter holds the direction (pyproject's layers contract, run by
tests/unit/test_layering.py); this holds the folders to it: every room named in the
contract, app's top holding only what the whole app shares, no folder over about 20
modules, every room a package that ships.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
ROOMS = ("hook", "mcp", "serve", "setup", "tty", "verbs")
TOP = {
    "cli",  # the entry point (`jobs_tui.app.cli:main`), which dispatches to the doors
    "argv",  # the parser: every door's options
    "verbargs",  # each verb's own arguments, which the parser builds from
    "argcheck",  # and the checks of what was typed
    "since",
    "errors",  # what every door shares: exit codes and errors, output, the session
    "printing",
    "jsonout",
    "session",
    "tui",  # the screen's app, shown by cli and by each serve tab
    "demo",
}
MAX_MODULES = 20


def config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_contract_names_the_rooms_and_their_direction():
    (layers,) = [
        c
        for c in config()["tool"]["importlinter"]["contracts"]
        if c["type"] == "layers" and c.get("containers") == ["jobs_tui.app"]
    ]
    # cli dispatches; the doors know nothing of each other; the hooks and tty lie below
    assert layers["layers"] == ["cli", "verbs | serve | mcp | setup", "hook", "tty"]
    assert "ignore_imports" not in layers
    named = {name.strip() for layer in layers["layers"] for name in layer.split("|")}
    assert named - {"cli"} == set(ROOMS)


def test_the_verbs_import_no_ui():
    (verbs,) = [
        c
        for c in config()["tool"]["importlinter"]["contracts"]
        if c["type"] == "forbidden" and c["source_modules"] == ["jobs_tui.app.verbs"]
    ]
    assert {"textual", "rich", "jobs_tui.screens", "jobs_tui.app.tui"} <= set(
        verbs["forbidden_modules"]
    )


def test_the_top_holds_what_the_app_shares_and_every_room_at_most_20():
    assert {p.stem for p in APP.glob("*.py")} == TOP | {"__init__"}
    folders = sorted(p.name for p in APP.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == sorted(ROOMS)
    for room in ROOMS:
        modules = [p for p in (APP / room).glob("*.py") if p.name != "__init__.py"]
        assert (APP / room / "__init__.py").is_file(), room
        assert 0 < len(modules) <= MAX_MODULES, (room, len(modules))


def test_every_room_ships_in_a_wheel():
    setuptools = config()["tool"]["setuptools"]
    for room in ROOMS:
        package = f"jobs_tui.app.{room}"
        assert package in setuptools["packages"], package
        assert setuptools["package-dir"][package] == f"app/{room}", package
    assert config()["project"]["scripts"]["jobs-tui"] == "jobs_tui.app.cli:main"
