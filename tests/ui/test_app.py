"""The standalone app: the list is its home, q quits, y/N before killing own jobs; the CLI hook."""

from __future__ import annotations

import os
import sys

import pytest

from jobs_tui.app import cli
from jobs_tui.app.demo import demo_jobs
from jobs_tui.app.tui import JobsApp
from jobs_tui.engine import Config, JobManager, JobStatus
from jobs_tui.screens import ConfirmScreen, JobsScreen, LogScreen

from .fakes import screen_text, until

pytestmark = pytest.mark.timeout(90)


def manager(registry_dir: str) -> JobManager:
    return JobManager(cwd=".", registry_dir=registry_dir, config=Config(kill_grace_ms=1000))


async def test_q_quits_at_once_when_nothing_of_ours_runs(registry_dir: str):
    jm = manager(registry_dir)
    app = JobsApp(jm)
    async with app.run_test(size=(100, 30)) as pilot:
        assert isinstance(app.screen, JobsScreen)
        assert "0 jobs" in screen_text(app) and "q Quit" in screen_text(app)
        await pilot.press("escape")  # Esc does not leave the standalone app
        assert app.is_running
        await pilot.press("q")
        assert await until(lambda: not app.is_running)
    assert app.return_code == 0


async def test_quit_with_own_running_jobs_asks_and_no_keeps_them(registry_dir: str):
    jm = manager(registry_dir)
    app = JobsApp(jm)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        rec = await jm.start("sleep 30", label="build")
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == "Quit and kill 1 running job started here?"
        await pilot.press("n")
        assert isinstance(app.screen, JobsScreen) and app.is_running
        assert jm.get(rec.id).running
        await pilot.press("ctrl+q")  # the app's own quit asks the same question
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        assert await until(lambda: not app.is_running, 15)
    assert jm.get(rec.id).status is JobStatus.KILLED


async def test_detached_jobs_do_not_make_quit_ask(registry_dir: str):
    jm = manager(registry_dir)
    app = JobsApp(jm)
    async with app.run_test(size=(100, 30)) as pilot:
        rec = await jm.start("sleep 30", detached=True)
        await pilot.press("q")
        assert await until(lambda: not app.is_running)
    async with manager(registry_dir) as again:  # it outlived us; stop it
        await again.kill(rec.id, "SIGKILL")


async def test_demo_starts_the_sample_jobs(registry_dir: str):
    jm = manager(registry_dir)
    app = JobsApp(jm, demo=True)
    async with app.run_test(size=(120, 30)) as pilot:
        assert await until(lambda: len(jm.jobs()) == len(demo_jobs()))
        labels = {r.label for r in jm.jobs()}
        assert {"progress", "build", "python repl", "dev server"} <= labels
        assert await until(lambda: any(r.status is JobStatus.FAILED for r in jm.jobs()), 15)
        repl = next(r for r in jm.jobs() if r.label == "python repl")
        app.screen.job_list.select(repl.id)
        await pilot.press("enter", "i", *"print(6 * 7)", "enter")
        screen = app.screen
        assert isinstance(screen, LogScreen)
        assert await until(lambda: "42" in " ".join(screen.view.lines), 15)
        await pilot.press("escape", "q", "q", "y")
        assert await until(lambda: not app.is_running, 15)
    assert not any(r.running for r in jm.jobs())


def test_no_verb_without_a_terminal_prints_plain_rows(registry_dir, capsys, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert cli.main(["--registry-dir", registry_dir]) == 0
    out = capsys.readouterr().out
    assert out.startswith("0 jobs · 0 running · 0 failed · 0 peer")
    assert cli.main(["--registry-dir", registry_dir, "list"]) == 0
    assert cli.main(["schema"]) == 0
    assert '"action"' in capsys.readouterr().out
    assert cli.main(["--demo"]) == 2
    assert "needs a terminal" in capsys.readouterr().err


def test_no_verb_on_a_terminal_opens_the_ui(registry_dir, monkeypatch):
    import jobs_tui.app.tui as tui

    opened: list[tuple] = []
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(tui, "run_tui", lambda **kw: opened.append(kw) or 0)
    assert cli.main(["--registry-dir", registry_dir]) == 0
    assert cli.main(["--demo"]) == 0
    assert opened == [
        {"registry_dir": registry_dir, "demo": False},
        {"registry_dir": None, "demo": True},
    ]


def test_the_env_var_names_the_registry(tmp_path, monkeypatch):
    monkeypatch.setenv("JOBS_TUI_REGISTRY_DIR", os.fspath(tmp_path / "from-env"))
    jm = JobManager(cwd=".", registry_dir_flag=None)
    assert str(jm.dir) == os.fspath(tmp_path / "from-env")
    jm = JobManager(cwd=".", registry_dir_flag=os.fspath(tmp_path / "flag"))
    assert str(jm.dir) == os.fspath(tmp_path / "flag")
