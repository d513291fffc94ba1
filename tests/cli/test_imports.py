"""The verbs load no UI module (Textual, Rich, the screens), so a call costs little more than
an interpreter start; only `jobs-tui` on a terminal (no verb) opens the screen. Nor do
they load a vocabulary (`engine/tools/`): every verb is a typed JobManager call (issue 10)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import Cli

UI = ("textual", "rich", "jobs_tui.screens", "jobs_tui.app.tui", "jobs_tui.app.demo")

WRAPPER = (
    "import sys\n"
    "from jobs_tui.app.cli import main\n"
    "code = main(sys.argv[1:])\n"
    f"ui = sorted(m for m in sys.modules if m.startswith({UI!r}))\n"
    "print('UI-MODULES', ui, file=sys.stderr)\n"
    "tools = sorted(m for m in sys.modules if (m + '.').startswith('jobs_tui.engine.tools.'))\n"
    "print('TOOL-MODULES', tools, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def ui_modules(cli: Cli, *words: str) -> tuple[int, str, str, str]:
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *words],
        capture_output=True,
        text=True,
        env=cli.env(),
        cwd=cli.cwd,
        timeout=60,
    )
    lines = done.stderr.splitlines()
    line = next(x for x in lines if x.startswith("UI-MODULES"))
    tools = next(x for x in lines if x.startswith("TOOL-MODULES"))
    return done.returncode, line.removeprefix("UI-MODULES "), tools.split(" ", 1)[1], done.stdout


@pytest.mark.parametrize(
    "words",
    [
        ("start", "--stdin", "--", "cat"),
        ("list",),
        ("status", "j1"),
        ("logs", "j1"),
        ("send", "j1", "hi"),
        ("poll", "j1"),
        ("kill", "j1"),
        ("wait", "j1"),
        ("clear", "--all"),
        ("exec", "--", "true"),
        ("schema",),
        ("config", "show"),
        (),  # no verb, stdout not a terminal: the rows, in plain text
    ],
)
def test_verbs_import_no_ui_module_and_no_vocabulary(cli: Cli, words: tuple[str, ...]):
    if words and words[0] == "wait":
        cli.ok("start", "--", "true")
    elif words and words[0] not in ("start", "exec", "schema", "config", "list"):
        cli.ok("start", "--stdin", "--", "cat")
    code, modules, tools, _out = ui_modules(cli, *words)
    assert code == 0 and modules == "[]" and tools == "[]"


def test_no_verb_off_a_terminal_prints_the_rows(cli: Cli):
    cli.ok("start", "--label", "server", "--", "sleep 30")
    out = cli.ok().out.splitlines()
    assert out[0] == "1 job · 1 running · 0 failed · 0 peer" and "server" in out[1]
    assert cli("--demo").code == 2  # the demo needs a terminal


def test_the_real_entry_point_under_importtime(cli: Cli):
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "jobs_tui.app.cli", "exec", "--", "true"],
        capture_output=True,
        text=True,
        env=cli.env(),
        cwd=cli.cwd,
        timeout=60,
    )
    assert done.returncode == 0
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()]
    # exec runs without an event loop on a session with nothing to do (engine/session/quickexec.py)
    assert "jobs_tui.app.verbs.execute" in imported and "asyncio" not in imported
    assert not [m for m in imported if m.startswith(UI)]
