"""A short call loads only what it uses (issue 10, command-line costs): no OpenSSL (ssl,
hashlib, secrets), no shutil for argparse's width, no datetime or unicodedata for ASCII
output; `list` and `status` no event loop (see test_readonly). Without a config file:
reading one loads tomllib, which loads datetime."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import Cli

UNUSED = ("ssl", "_ssl", "hashlib", "_hashlib", "secrets", "shutil", "datetime", "unicodedata")

WRAPPER = (
    "import sys\n"
    "from jobs_tui.app.cli import main\n"
    "code = main(sys.argv[1:])\n"
    f"loaded = sorted(m for m in sys.modules if m in {UNUSED!r})\n"
    "print('LOADED', loaded, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def loaded(cli: Cli, *words: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *words],
        capture_output=True,
        text=True,
        env={**cli.env(), "JOBS_TUI_CONFIG": str(Path(cli.cwd) / "no-config.toml")},
        cwd=cli.cwd,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return next(x for x in done.stderr.splitlines() if x.startswith("LOADED")).split(" ", 1)[1]


@pytest.mark.parametrize(
    "words", [("exec", "--", "true"), ("start", "--", "sleep 30"), ("list",), ("status", "j1")]
)
def test_a_short_call_loads_no_module_it_does_not_use(cli: Cli, words: tuple[str, ...]):
    if words[0] == "status":
        cli.ok("start", "--", "sleep 30")
    assert loaded(cli, *words) == "[]"


def test_asyncio_without_ssl_leaves_ssl_importable():
    code = (
        "import sys\n"
        "from jobs_tui.app.cli import import_asyncio\n"
        "asyncio = import_asyncio()\n"
        "assert 'ssl' not in sys.modules and asyncio.run(asyncio.sleep(0, 'ok')) == 'ok'\n"
        "import ssl\n"
        "print(ssl.OPENSSL_VERSION[:7])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "OpenSSL", done.stderr


def test_help_is_as_wide_as_the_terminal_says(cli: Cli):
    narrow = cli("start", "--help", env={"COLUMNS": "40"}).out.splitlines()
    wide = cli("start", "--help", env={"COLUMNS": "200"}).out.splitlines()
    assert len(narrow) > len(wide) and max(map(len, wide)) > 100
