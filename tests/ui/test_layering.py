"""Styles are package data and no screen leaks CSS into its host. (That screens never import
the app is an import-linter contract: pyproject.toml, tests/unit/test_layering.py.)"""

from __future__ import annotations

from importlib import resources


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
