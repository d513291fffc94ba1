"""The generated pages (docs/keys.md, docs/cli-reference.md) are what the code says now.

`scripts/docs_pages.py` writes them from the screens' bindings and `?` texts and from the
command line's parsers; these tests render them in memory and compare with the committed
files, so a binding, a help text or a flag changed without `python scripts/docs_pages.py`
fails here (and the checks below show the comparison can fail).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "docs_pages.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_pages", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pages_script() -> ModuleType:
    return load_script()


@pytest.fixture(scope="module")
def pages(pages_script: ModuleType) -> dict[str, str]:
    return pages_script.render_all()


def test_the_committed_pages_are_what_the_code_says_now(pages_script, pages) -> None:
    assert sorted(pages) == ["cli-reference.md", "keys.md"]
    assert pages_script.stale_of(pages) == [], "run: python scripts/docs_pages.py"


def test_a_page_that_differs_is_stale(pages_script, pages, tmp_path) -> None:
    (tmp_path / "keys.md").write_text(pages["keys.md"].replace("jobs.kill", "jobs.kil"))
    assert pages_script.stale_of(pages, tmp_path) == ["keys.md", "cli-reference.md"]
    (tmp_path / "cli-reference.md").write_text(pages["cli-reference.md"])
    assert pages_script.stale_of(pages, tmp_path) == ["keys.md"]


def test_a_changed_help_text_changes_the_keys_page(pages_script, monkeypatch) -> None:
    from jobs_tui.screens import LogScreen

    monkeypatch.setitem(LogScreen.HELP, "toggle_wrap", "fold the long lines")
    page = pages_script.keys_page()
    assert "| `w` | fold the long lines | `log.wrap` |" in page


def test_a_changed_flag_changes_the_reference(pages_script, monkeypatch) -> None:
    from jobs_tui.app import argv

    monkeypatch.setitem(argv.VERBS, "poll", "what this session has not read, said anew")
    assert "what this session has not read, said anew" in pages_script.cli_page()


def test_every_binding_id_is_on_the_keys_page(pages) -> None:
    from jobs_tui.screens import ConfirmScreen, JobsScreen, LogScreen, QuitScreen, TerminalScreen

    screens = (JobsScreen, LogScreen, TerminalScreen, ConfirmScreen, QuitScreen)
    ids = [b.id for screen in screens for b in screen.BINDINGS if getattr(b, "id", None)]
    assert len(ids) >= 50
    missing = [i for i in ids if f"`{i}`" not in pages["keys.md"]]
    assert missing == []
    assert "`term.leave`" in pages["keys.md"]  # the typing view's one key


def test_every_verb_and_flag_is_in_the_reference(pages) -> None:
    from jobs_tui.app.argv import VERBS, verb_parser

    page = pages["cli-reference.md"]
    for name in VERBS:
        assert f"\n## jobs-tui {name}\n" in page, name
        section = page.split(f"\n## jobs-tui {name}\n", 1)[1].split("\n## ", 1)[0]
        for action in verb_parser(name)._actions:
            if isinstance(action, argparse._HelpAction) or action.default is argparse.SUPPRESS:
                continue
            for flag in action.option_strings:
                assert f"`{flag}`" in section, (name, flag)
