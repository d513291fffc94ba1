"""`jobs-tui --version`, and one job said as one job (issue 24, section 2)."""

from __future__ import annotations

from importlib.metadata import version

from .conftest import Cli


def test_version_prints_this_installs_version_on_stdout(cli: Cli):
    result = cli("--version")
    assert result.code == 0, result
    assert result.out == f"jobs-tui {version('jobs-tui')}\n"
    assert result.err == ""
    assert "--version" in cli.ok("--help").out


def test_list_of_one_job_says_1_job(cli: Cli):
    cli.ok("start", "--", "sleep 30")
    try:
        assert cli.ok("list").out.startswith("1 job · 1 running · 0 failed")
    finally:
        cli.ok("kill", "j1")
