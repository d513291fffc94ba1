"""Running the real `jobs-tui` entry point in subprocesses, one registry directory per test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

ENTRY = [sys.executable, "-m", "jobs_tui.app.cli"]


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@dataclass
class Cli:
    """`cli("start", "--", "make")` runs `jobs-tui start -- make` against the test's registry."""

    registry_dir: str
    cwd: str
    sessions: set[str] = field(default_factory=lambda: {"cli"})

    def env(self, session: str | None = None) -> dict[str, str]:
        env = dict(os.environ, JOBS_TUI_REGISTRY_DIR=self.registry_dir)
        if session is not None:
            env["JOBS_TUI_SESSION"] = session
            self.sessions.add(session)
        return env

    def __call__(
        self,
        *words: str,
        stdin: str | None = None,
        session: str | None = None,
        timeout=60,
        env: dict[str, str] | None = None,
    ) -> Result:
        done = subprocess.run(
            [*ENTRY, *words],
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            env={**self.env(session), **(env or {})},
            cwd=self.cwd,
            timeout=timeout,
        )
        return Result(done.returncode, done.stdout, done.stderr)

    def popen(self, *words: str, session: str | None = None) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*ENTRY, *words],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env(session),
            cwd=self.cwd,
        )

    def ok(self, *words: str, **kw: Any) -> Result:
        result = self(*words, **kw)
        assert result.code == 0, (words, result)
        return result


@pytest.fixture
def cli(registry_dir: str, tmp_path) -> Iterator[Cli]:
    config = os.environ["JOBS_TUI_CONFIG"]
    with open(config, "w") as fh:  # a short kill grace keeps kill tests quick
        fh.write("[job]\nkill_grace_ms = 300\n")
    work = tmp_path / "work"
    work.mkdir()
    runner = Cli(registry_dir, str(work))
    yield runner
    for session in sorted(runner.sessions):
        runner("clear", "--all", session=session, timeout=30)


def until(predicate, timeout: float = 10.0) -> bool:
    """Polls `predicate` (a blocking helper for command-line tests) until true or timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()
