"""Arrows point one way: screens import the engine, never the app; styles are package data."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources


def test_screens_never_import_the_app():
    code = (
        "import sys, jobs_tui.screens; "
        "bad = [m for m in sys.modules if m.startswith('jobs_tui.app')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_stylesheet_ships_as_package_data():
    names = {p.name for p in resources.files("jobs_tui.styles").iterdir()}
    for name in ("jobs_screen.tcss", "job_list.tcss", "detail.tcss", "log_screen.tcss",
                 "log_view.tcss", "find_bar.tcss", "send_bar.tcss", "confirm.tcss",
                 "chips.tcss"):  # fmt: skip
        assert name in names


def test_no_screen_sets_css_path():
    from jobs_tui.screens import ConfirmScreen, JobsScreen, LogScreen

    for screen in (JobsScreen, LogScreen, ConfirmScreen):
        assert not screen.CSS_PATH and not screen.CSS
