"""Every key of `jobs-tui.toml`, once: its kind, its range and what it means.

The validator (`validate.py`) holds a file to this table and the published JSON Schema
(`schema.py`) is built from it, so what an editor checks and what `config check` checks
cannot drift; the docs page lists the same keys (tests/unit/declared/test_schema.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import CONDITIONS, DEFAULTS, PROBE_DEFAULTS, RESTART_POLICIES, STOP_SIGNALS

MAX_PATH = 4096
MAX_TEXT = 200
MAX_ENV = 100
MAX_ENV_VALUE = 4096
MAX_JOBS = 200
# A declared name: what `jobs-tui logs api` and the tools' `id: "api"` take. It may not
# look like a job id (j3, 3): those always name a job by its id.
NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
JOB_ID = r"^j?[0-9]+$"
ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
URL = r"^https?://[^\s/?#]+[^\s]*$"
NAME_RE = re.compile(NAME)
JOB_ID_RE = re.compile(JOB_ID)
ENV_NAME_RE = re.compile(ENV_NAME)
URL_RE = re.compile(URL)


@dataclass(frozen=True)
class Key:
    """One key: `kind` is command, path, text, regex, url, int, bool, enum, env, depends
    or probe; `low`/`high` bound an int; `choices` an enum."""

    name: str
    kind: str
    text: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    @property
    def default(self) -> object:
        return DEFAULTS.get(self.name, PROBE_DEFAULTS.get(self.name))


JOB_KEYS: dict[str, Key] = {
    k.name: k
    for k in (
        Key("command", "command", "The shell command (run as `sh -c COMMAND`). Required."),
        Key("description", "text", "One line shown beside the job."),
        Key("cwd", "path", "Working directory, relative to the file's directory."),
        Key("env", "env", "Environment variables added to the job's (strings)."),
        Key("env_file", "path", "A file of KEY=VALUE lines, relative to the file's directory."),
        Key("ready", "probe", "The readiness probe: one of log, port, http or exec."),
        Key(
            "restart", "enum", "When the job is restarted after it ends.", choices=RESTART_POLICIES
        ),
        Key("max_restarts", "int", "Restarts before it stays failed (none: no limit).", 1, 100_000),
        Key("backoff_ms", "int", "Milliseconds between an exit and the restart.", 0, 3_600_000),
        Key(
            "depends_on",
            "depends",
            "Jobs started first, each with the state it must reach: started, ready or "
            "succeeded (exited 0).",
        ),
        Key("stop_signal", "enum", "The signal that stops the job first.", choices=STOP_SIGNALS),
        Key("kill_grace_ms", "int", "Milliseconds from stop_signal to KILL.", 0, 600_000),
        Key("tty", "bool", "Run the job on a pseudo-terminal."),
        Key("autostart", "bool", "Started by a bare `jobs-tui up`."),
    )
}
PROBE_KINDS_KEYS: dict[str, Key] = {
    k.name: k
    for k in (
        Key(
            "log", "regex", "Ready when a line of the job's output matches this regular expression."
        ),
        Key("port", "int", "Ready when the job's process tree listens on this TCP port.", 1, 65535),
        Key("http", "url", "Ready when a GET of this http(s) URL answers 2xx or 3xx."),
        Key("exec", "command", "Ready when this command exits 0 (run in the job's cwd)."),
    )
}
PROBE_KEYS: dict[str, Key] = {
    **PROBE_KINDS_KEYS,
    **{
        k.name: k
        for k in (
            Key("period_ms", "int", "Milliseconds between two tries.", 10, 3_600_000),
            Key("timeout_ms", "int", "Milliseconds one try may take.", 1, 600_000),
            Key(
                "limit_ms",
                "int",
                "Milliseconds after the start without passing: the job is marked not ready "
                "(none: no limit).",
                1,
                86_400_000,
            ),
        )
    },
}
CONDITION_TEXT = {
    "started": "the dependency's command is running",
    "ready": "its probe passed (it needs a `ready` probe)",
    "succeeded": "it exited 0 (migrations, builds)",
}
assert set(CONDITION_TEXT) == set(CONDITIONS)
