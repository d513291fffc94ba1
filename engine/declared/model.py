"""What a project declares: its jobs, each job's probe and policy, and the start order.

Pure records (no IO): `engine/declared/` reads a file into these once, validated whole
(`validate.py`), and every door that brings a stack up reads them. The defaults are
written once, here (`DEFAULTS`), and match process-compose's where it has one: no
restart, 1000 ms between restarts, a probe every 1000 ms that may take 1000 ms, 10000 ms
between the stop signal and KILL, SIGTERM first, every job started by `up`.

`DeclaredJob.to_spec()` is the plain-JSON form of a job (`config check --json`, the
plan); `DeclaredJob.shim_rules(ids)` the rules its supervisor (the shim, which imports
nothing of ours) is handed, dependencies by job id (shim/protocol.py's DeclaredSpec).
The plan's shape, camelCase as the JSON output is::

    {
      "name": "api",                      # the declared name
      "command": "uvicorn app:app",       # run as `sh -c COMMAND`
      "cwd": "backend" | null,            # as written (relative to the file's directory),
                                          #   or absolute when to_spec(root) is given a root
      "env": {"DEBUG": "1"},              # added to the environment
      "envFile": ".env" | null,           # KEY=VALUE lines, read when the job starts
                                          #   (resolved like cwd)
      "ready": null | {
        "kind": "log" | "port" | "http" | "exec",
        "target": "ready to accept" | 5432 | "http://127.0.0.1:8000/health" | "pg_isready",
                                          # log: a regular expression searched in each line
                                          #   (Python `re.search`, as `wait --until`);
                                          # port: a TCP port the job's tree listens on;
                                          # http: a URL answering 2xx/3xx to a GET;
                                          # exec: a command exiting 0 (`sh -c`, in cwd)
        "periodMs": 1000, "timeoutMs": 1000,
        "limitMs": 60000 | null           # then the job is marked not ready (null: no limit)
      },
      "restart": "no" | "on-failure" | "always",
      "maxRestarts": 5 | null,            # null: no limit
      "backoffMs": 1000,
      "dependsOn": {"db": "ready"},       # "started" | "ready" | "succeeded" (exited 0)
      "stopSignal": "SIGTERM",            # then KILL after killGraceMs
      "killGraceMs": 10000,
      "tty": false,
      "autostart": true,
      "description": "the API" | null
    }
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Literal

from jobs_tui.engine.shim.protocol import KILL_SIGNALS

ProbeKind = Literal["log", "port", "http", "exec"]
RestartPolicy = Literal["no", "on-failure", "always"]
Condition = Literal["started", "ready", "succeeded"]

PROBE_KINDS: tuple[str, ...] = ("log", "port", "http", "exec")
RESTART_POLICIES: tuple[str, ...] = ("no", "on-failure", "always")
CONDITIONS: tuple[str, ...] = ("started", "ready", "succeeded")
# The signals a job may be stopped with first (KILL follows after kill_grace_ms): the
# three every job's supervisor knows (the shim's protocol), and the few more dev servers
# are stopped with.
STOP_SIGNALS: tuple[str, ...] = (*KILL_SIGNALS, "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")

FILE_NAME = "jobs-tui.toml"

# Every default, once: the validator, the schema, the docs and the importers read these.
DEFAULTS: dict[str, Any] = {
    "cwd": None,
    "env": {},
    "env_file": None,
    "ready": None,
    "restart": "no",
    "max_restarts": None,
    "backoff_ms": 1000,
    "depends_on": {},
    "stop_signal": "SIGTERM",
    "kill_grace_ms": 10_000,
    "tty": False,
    "autostart": True,
    "description": None,
}
PROBE_DEFAULTS: dict[str, Any] = {"period_ms": 1000, "timeout_ms": 1000, "limit_ms": None}


@dataclass(frozen=True)
class Probe:
    """How a job is known to be ready: a line of its log, a port, a URL or a command."""

    kind: ProbeKind
    target: str | int
    period_ms: int = PROBE_DEFAULTS["period_ms"]
    timeout_ms: int = PROBE_DEFAULTS["timeout_ms"]
    limit_ms: int | None = PROBE_DEFAULTS["limit_ms"]

    def to_spec(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "target": self.target,
            "periodMs": self.period_ms,
            "timeoutMs": self.timeout_ms,
            "limitMs": self.limit_ms,
        }

    def to_table(self) -> dict[str, Any]:
        """The `ready = {...}` inline table, defaults left out."""
        table: dict[str, Any] = {self.kind: self.target}
        for key, default in PROBE_DEFAULTS.items():
            if getattr(self, key) != default:
                table[key] = getattr(self, key)
        return table

    def describe(self) -> str:
        """`log /ready to accept/`, `port 5432`, … for the plan `config check` prints."""
        if self.kind == "log":  # read as the lines come: no period, no timeout
            text = f"log /{self.target}/"
        else:
            text = f"{self.kind} {self.target} every {self.period_ms} ms"
            text += f" (timeout {self.timeout_ms} ms)"
        if self.limit_ms is not None:
            text += f", not ready after {self.limit_ms} ms"
        return text


@dataclass(frozen=True)
class DeclaredJob:
    """One `[jobs.NAME]` table, every key typed and defaulted."""

    name: str
    command: str
    cwd: str | None = DEFAULTS["cwd"]
    env: dict[str, str] = field(default_factory=dict)
    env_file: str | None = DEFAULTS["env_file"]
    ready: Probe | None = DEFAULTS["ready"]
    restart: RestartPolicy = DEFAULTS["restart"]
    max_restarts: int | None = DEFAULTS["max_restarts"]
    backoff_ms: int = DEFAULTS["backoff_ms"]
    depends_on: dict[str, Condition] = field(default_factory=dict)
    stop_signal: str = DEFAULTS["stop_signal"]
    kill_grace_ms: int = DEFAULTS["kill_grace_ms"]
    tty: bool = DEFAULTS["tty"]
    autostart: bool = DEFAULTS["autostart"]
    description: str | None = DEFAULTS["description"]

    def to_spec(self, root: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """Plain JSON for the job's supervisor (shape: the module docstring). With `root`
        (the file's directory), `cwd` and `envFile` are absolute."""
        return {
            "name": self.name,
            "command": self.command,
            "cwd": _resolved(self.cwd, root),
            "env": dict(self.env),
            "envFile": _resolved(self.env_file, root),
            "ready": self.ready.to_spec() if self.ready else None,
            "restart": self.restart,
            "maxRestarts": self.max_restarts,
            "backoffMs": self.backoff_ms,
            "dependsOn": dict(self.depends_on),
            "stopSignal": self.stop_signal,
            "killGraceMs": self.kill_grace_ms,
            "tty": self.tty,
            "autostart": self.autostart,
            "description": self.description,
        }

    def shim_rules(self, ids: dict[str, str]) -> dict[str, Any]:
        """The shim's DeclaredSpec: `ids` maps each dependency's name to its job's id."""
        ready = None
        if self.ready is not None:
            probe = self.ready
            ready = {
                "kind": probe.kind,
                "target": probe.target,
                "period_ms": probe.period_ms,
                "timeout_ms": probe.timeout_ms,
                "limit_ms": probe.limit_ms,
            }
        return {
            "name": self.name,
            "ready": ready,
            "restart": self.restart,
            "max_restarts": self.max_restarts,
            "backoff_ms": self.backoff_ms,
            "depends": [
                {"id": ids[name], "name": name, "until": until}
                for name, until in self.depends_on.items()
            ],
            "stop_signal": self.stop_signal,
            "kill_grace_ms": self.kill_grace_ms,
        }

    def to_table(self) -> dict[str, Any]:
        """The `[jobs.NAME]` table that reads back as this job, defaults left out."""
        table: dict[str, Any] = {"command": self.command}
        for key, default in DEFAULTS.items():
            value = getattr(self, key)
            if value == default or value is None:
                continue
            table[key] = value.to_table() if isinstance(value, Probe) else value
        return table

    def policy(self) -> str:
        """`restart on-failure (at most 5, 1000 ms apart)` for the plan."""
        if self.restart == "no":
            return "restart no"
        most = "no limit" if self.max_restarts is None else f"at most {self.max_restarts}"
        return f"restart {self.restart} ({most}, {self.backoff_ms} ms apart)"


def _resolved(path: str | None, root: str | os.PathLike[str] | None) -> str | None:
    if path is None or root is None:
        return path
    return os.path.normpath(os.path.join(os.fspath(root), os.path.expanduser(path)))


class UnknownDeclared(KeyError):
    """A name that is not a declared job of the stack."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(name)
        self.name = name
        self.known = known

    def __str__(self) -> str:
        listed = ", ".join(self.known) or "none"
        return f"no declared job named {self.name!r} (declared: {listed})"


@dataclass
class Stack:
    """The declared jobs of one file, in the file's order, already validated (acyclic,
    every dependency declared), so `levels` and `closure` cannot fail on the graph."""

    jobs: dict[str, DeclaredJob]
    source: str  # the file read (its path)
    warnings: list[str] = field(default_factory=list)
    format: str = FILE_NAME  # jobs-tui.toml, process-compose.yaml, mprocs.yaml or Procfile

    @property
    def root(self) -> str:
        """The directory relative paths (cwd, env_file) are read from: the file's."""
        return os.path.dirname(os.path.abspath(self.source))

    def levels(self) -> list[list[str]]:
        """The start order as levels: level 0 depends on nothing, level n on jobs of the
        levels before it (the longest chain below it is n long); file order in a level."""
        depth: dict[str, int] = {}

        def level_of(name: str) -> int:
            if name not in depth:
                below = [level_of(d) for d in self.jobs[name].depends_on]
                depth[name] = 1 + max(below) if below else 0
            return depth[name]

        for name in self.jobs:
            level_of(name)
        out: list[list[str]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
        for name in self.jobs:
            out[depth[name]].append(name)
        return out

    def closure(self, names: list[str] | None = None) -> list[str]:
        """The named jobs and everything they depend on, in start order (levels, then
        file order). `None` names the jobs with `autostart` (what a bare `up` starts)."""
        if names is None:
            names = [n for n, job in self.jobs.items() if job.autostart]
        wanted: set[str] = set()
        todo = list(names)
        while todo:
            name = todo.pop()
            if name not in self.jobs:
                raise UnknownDeclared(name, list(self.jobs))
            if name not in wanted:
                wanted.add(name)
                todo.extend(self.jobs[name].depends_on)
        return [n for level in self.levels() for n in level if n in wanted]

    def dependents(self, name: str) -> list[str]:
        """The jobs that depend on `name`, directly or not (what `down NAME` stops first)."""
        found = {name}
        changed = True
        while changed:
            changed = False
            for other, job in self.jobs.items():
                if other not in found and found & set(job.depends_on):
                    found.add(other)
                    changed = True
        return [n for n in self.jobs if n in found and n != name]

    def to_table(self) -> dict[str, Any]:
        """The whole file as a TOML document (what `config import` writes)."""
        return {"jobs": {name: job.to_table() for name, job in self.jobs.items()}}
