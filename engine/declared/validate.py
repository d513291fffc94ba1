"""A parsed `jobs-tui.toml` (a dict) -> a Stack, or every error it holds.

Pure: the caller read and parsed the file (`files.py`). The whole file is checked
before anything may start, and every problem is reported, not just the first, each as
`FILE: KEY: what is wrong` (`jobs-tui.toml: jobs.api.depends_on: db -> api -> db is a
cycle`). A reader of another format (process-compose.yaml, mprocs.yaml, a Procfile)
hands its translation here with `origins`, the keys it came from, so an error names
the key of the file the person wrote.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from jobs_tui.engine.calls.callschema import MAX_COMMAND

from .keys import (
    ENV_NAME_RE,
    JOB_ID_RE,
    JOB_KEYS,
    MAX_ENV,
    MAX_ENV_VALUE,
    MAX_JOBS,
    MAX_PATH,
    MAX_TEXT,
    NAME_RE,
    PROBE_KEYS,
    PROBE_KINDS_KEYS,
    URL_RE,
    Key,
)
from .model import CONDITIONS, DEFAULTS, PROBE_DEFAULTS, DeclaredJob, Probe, Stack

Path = tuple[str, ...]
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


class DeclaredFileError(ValueError):
    """A declared-jobs file that cannot be used: `errors` holds every problem, one line
    each (`jobs-tui.toml: jobs.api.command: missing: every job needs a command`)."""

    def __init__(self, source: str, errors: list[str], warnings: list[str] | None = None):
        super().__init__("\n".join(errors))
        self.source = source
        self.errors = errors
        self.warnings = warnings or []


def dotted(path: Path) -> str:
    """("jobs", "my job", "env") -> jobs."my job".env, as TOML writes a key."""
    return ".".join(p if _BARE.match(p) else '"' + p.replace('"', '\\"') + '"' for p in path)


def shown(value: Any) -> str:
    """A value as an error quotes it: TOML-ish, bounded."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:60] + "…"
        return '"' + text.replace('"', '\\"') + '"'
    if isinstance(value, dict):
        return f"a table of {len(value)}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return repr(value)[:60]


def _listed(words: tuple[str, ...] | list[str], quote: bool = False) -> str:
    items = [f'"{w}"' if quote else w for w in words]
    return ", ".join(items[:-1]) + " or " + items[-1] if len(items) > 1 else "".join(items)


@dataclass
class _Check:
    file: str
    origins: dict[Path, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def where(self, path: Path) -> str:
        for cut in range(len(path), 0, -1):
            if path[:cut] in self.origins:
                rest = dotted(path[cut:])
                return self.origins[path[:cut]] + ("." + rest if rest else "")
        return dotted(path)

    def error(self, path: Path, message: str) -> None:
        self.errors.append(f"{self.file}: {self.where(path)}: {message}")

    def warn(self, path: Path, message: str) -> None:
        self.warnings.append(f"{self.file}: {self.where(path)}: {message}")

    def unknown(self, path: Path, known: list[str]) -> None:
        close = difflib.get_close_matches(path[-1], known, n=1)
        hint = f"did you mean {close[0]}?" if close else f"the keys here are {', '.join(known)}"
        self.error(path, f"unknown key; {hint}")


def check_stack(
    data: dict[str, Any],
    source: str,
    file: str | None = None,
    *,
    origins: dict[Path, str] | None = None,
    warnings: list[str] | None = None,
    format: str = "jobs-tui.toml",
) -> Stack:
    """The Stack `data` declares, or DeclaredFileError with every problem. `source` is the
    file's path (Stack.source); `file` the name errors start with (default: source)."""
    check = _Check(file or source, dict(origins or {}), [], list(warnings or []))
    jobs: dict[str, DeclaredJob] = {}
    for key in data:
        if key != "jobs":
            check.unknown((key,), ["jobs"])
    table = data.get("jobs")
    if table is None:
        check.error(("jobs",), "missing: the file declares its jobs as [jobs.NAME] tables")
    elif not isinstance(table, dict):
        check.error(("jobs",), f"must be a table of jobs, not {shown(table)}")
    elif not table:
        check.error(("jobs",), "declares no job")
    elif len(table) > MAX_JOBS:
        check.error(("jobs",), f"declares {len(table)} jobs; at most {MAX_JOBS}")
    else:
        for name, body in table.items():
            job = _job(check, name, body)
            if job is not None:
                jobs[name] = job
        _graph(check, table)
    if check.errors:
        raise DeclaredFileError(source, check.errors, check.warnings)
    return Stack(jobs, source, check.warnings, format)


def _job(check: _Check, name: str, body: Any) -> DeclaredJob | None:
    path = ("jobs", name)
    if not NAME_RE.match(name):
        check.error(
            path, "a job's name is 1-64 letters, digits, _ . or -, starting with a letter or digit"
        )
    elif JOB_ID_RE.match(name):
        check.error(path, f"{name} reads as a job id; a declared name must not")
    if not isinstance(body, dict):
        check.error(path, f"must be a table ([jobs.{name}]), not {shown(body)}")
        return None
    before = len(check.errors)
    values: dict[str, Any] = {}
    for key, value in body.items():
        spec = JOB_KEYS.get(key)
        if spec is None:
            check.unknown((*path, key), list(JOB_KEYS))
            continue
        values[key] = _value(check, (*path, key), spec, value)
    if "command" not in body:
        check.error((*path, "command"), "missing: every job needs a command")
    if body.get("restart", "no") == "no" and "max_restarts" in body:
        check.warn((*path, "max_restarts"), 'has no effect with restart = "no"')
    if len(check.errors) > before:
        return None
    merged = {**DEFAULTS, **values}
    return DeclaredJob(name=name, **merged)


def _value(check: _Check, path: Path, spec: Key, value: Any) -> Any:
    """`value` typed by `spec`, or an error (and None)."""
    kind = spec.kind
    if kind == "probe":
        return _probe(check, path, value)
    if kind == "env":
        return _env(check, path, value)
    if kind == "depends":
        return _depends(check, path, value)
    if kind == "bool":
        if not isinstance(value, bool):
            check.error(path, f"must be true or false, not {shown(value)}")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            check.error(path, f"must be a whole number, not {shown(value)}")
        elif (spec.low is not None and value < spec.low) or (
            spec.high is not None and value > spec.high
        ):
            check.error(path, f"must be {spec.low}-{spec.high}, not {value}")
        return value
    if kind == "enum":
        if value not in spec.choices:
            check.error(path, f"must be {_listed(spec.choices, True)}, not {shown(value)}")
        return value
    if not isinstance(value, str):
        check.error(path, f"must be a string, not {shown(value)}")
        return value
    return _text(check, path, kind, value)


def _text(check: _Check, path: Path, kind: str, value: str) -> str:
    limit = {"command": MAX_COMMAND, "path": MAX_PATH, "text": MAX_TEXT}.get(kind, MAX_PATH)
    if "\x00" in value:
        check.error(path, "must not hold a NUL character")
    elif not value.strip():
        check.error(path, "must not be blank")
    elif len(value) > limit:
        check.error(path, f"is {len(value)} characters long; at most {limit}")
    elif kind == "text" and ("\n" in value or "\r" in value):
        check.error(path, "must be one line")
    elif kind == "regex":
        try:
            re.compile(value)
        except re.error as exc:
            check.error(path, f"is not a regular expression: {exc}")
    elif kind == "url" and not URL_RE.match(value):
        check.error(path, f"must be an http:// or https:// URL, not {shown(value)}")
    return value


def _probe(check: _Check, path: Path, value: Any) -> Probe | None:
    kinds = _listed(tuple(PROBE_KINDS_KEYS))
    if not isinstance(value, dict):
        check.error(path, f"must be a table such as {{ port = 8000 }}, not {shown(value)}")
        return None
    before = len(check.errors)
    typed: dict[str, Any] = {}
    for key, item in value.items():
        spec = PROBE_KEYS.get(key)
        if spec is None:
            check.unknown((*path, key), list(PROBE_KEYS))
            continue
        typed[key] = _value(check, (*path, key), spec, item)
    given = [k for k in PROBE_KINDS_KEYS if k in value]
    if not given:
        check.error(path, f"needs one of {kinds}")
    elif len(given) > 1:
        check.error(path, f"takes one of {kinds}, not {' and '.join(given)}")
    if len(check.errors) > before:
        return None
    rest = {k: typed.get(k, d) for k, d in PROBE_DEFAULTS.items()}
    return Probe(given[0], typed[given[0]], **rest)  # type: ignore[arg-type]


def _env(check: _Check, path: Path, value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        check.error(path, f'must be a table such as {{ DEBUG = "1" }}, not {shown(value)}')
        return {}
    if len(value) > MAX_ENV:
        check.error(path, f"holds {len(value)} variables; at most {MAX_ENV}")
    for key, item in value.items():
        if not ENV_NAME_RE.match(key):
            check.error((*path, key), "is not an environment variable name")
        elif not isinstance(item, str):
            check.error((*path, key), f"must be a string, not {shown(item)} (quote it)")
        elif "\x00" in item or len(item) > MAX_ENV_VALUE:
            check.error((*path, key), f"must be at most {MAX_ENV_VALUE} characters, no NUL")
    return value


def _depends(check: _Check, path: Path, value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        check.error(path, f'must be a table such as {{ db = "ready" }}, not {shown(value)}')
        return {}
    for key, item in value.items():
        if item not in CONDITIONS:
            check.error((*path, key), f"must be {_listed(CONDITIONS, True)}, not {shown(item)}")
    return value


def _has_probe(body: Any) -> bool:
    return isinstance(body, dict) and body.get("ready") is not None


def _graph(check: _Check, table: dict[str, Any]) -> None:
    """Dependencies on unknown jobs, "ready" on a job without a probe, and cycles."""
    edges: dict[str, list[str]] = {}
    for name, body in table.items():
        wants = body.get("depends_on") if isinstance(body, dict) else None
        if not isinstance(wants, dict):
            edges[name] = []
            continue
        edges[name] = [d for d in wants if d in table]
        for dep, condition in wants.items():
            where = ("jobs", name, "depends_on", dep)
            if dep not in table:
                close = difflib.get_close_matches(dep, list(table), n=1)
                hint = f"; did you mean {close[0]}?" if close else ""
                check.error(where, f"no job named {dep} in this file{hint}")
            elif condition == "ready" and not _has_probe(table[dep]):
                check.error(where, f'"ready" needs a ready probe on {dep}; it has none')
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        stack.append(name)
        for dep in edges[name]:
            if state.get(dep) == 1:
                chain = [*stack[stack.index(dep) :], dep]
                check.error(("jobs", name, "depends_on"), f"{' -> '.join(chain)} is a cycle")
            elif dep not in state:
                visit(dep)
        stack.pop()
        state[name] = 2

    for name in table:
        if name not in state:
            visit(name)
