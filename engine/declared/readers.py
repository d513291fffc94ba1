"""What people already have, read into a `jobs-tui.toml` table: the common part of the
three readers, and the two small ones (mprocs.yaml, Procfile; process-compose is
`compose.py`).

A reader is pure (the text or the parsed YAML in, a `Translation` out). It translates
the documented subset of its format into the keys of `jobs-tui.toml`, remembering where
each came from (`origins`), names every field outside the subset in a warning (never
silently dropped) and reports what cannot be read as errors; the one validator
(`validate.check_stack`) then checks the result as it checks a `jobs-tui.toml`, its
errors naming the original keys.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from .model import STOP_SIGNALS, Stack
from .validate import DeclaredFileError, Path, check_stack, dotted, shown

# Keys that only a docker-compose file has: a file holding them is not what it says.
DOCKER_COMPOSE_KEYS = ("image", "build", "ports")


@dataclass
class Translation:
    """A reader's result: the jobs-tui.toml table, where its keys came from, what was
    left out (warnings) and what could not be read (errors), each `FILE: KEY: text`."""

    file: str
    table: dict[str, Any] = field(default_factory=lambda: {"jobs": {}})
    origins: dict[Path, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def jobs(self) -> dict[str, dict[str, Any]]:
        return self.table["jobs"]

    def put(self, name: str, key: str, value: Any, origin: str) -> None:
        """`jobs.NAME.KEY = value`, read from `origin`; None (already an error) is left out."""
        if value is None:
            return
        self.jobs.setdefault(name, {})[key] = value
        self.origins[("jobs", name, key)] = origin

    def error(self, where: str, message: str) -> None:
        self.errors.append(f"{self.file}: {where}: {message}")

    def warn(self, where: str, message: str) -> None:
        self.warnings.append(f"{self.file}: {where}: {message}")

    def left_out(self, where: str, keys: list[str], what: str = "not read by jobs-tui") -> None:
        if keys:
            self.warn(where, f"{', '.join(keys)} {what}; left out")

    def stack(self, source: str, format: str) -> Stack:
        """The validated Stack; DeclaredFileError with the reader's errors and the
        validator's, every one of them (only the reader's when it found no job at all)."""
        if self.errors and not self.jobs:
            raise DeclaredFileError(source, self.errors, self.warnings)
        try:
            stack = check_stack(
                self.table,
                source,
                self.file,
                origins=self.origins,
                warnings=self.warnings,
                format=format,
            )
        except DeclaredFileError as exc:
            raise DeclaredFileError(source, self.errors + exc.errors, exc.warnings) from None
        if self.errors:
            raise DeclaredFileError(source, self.errors, self.warnings)
        return stack


def key(*parts: str) -> str:
    return dotted(tuple(parts))


def not_docker_compose(out: Translation, where: str, body: dict[str, Any]) -> bool:
    """An error if `body` holds docker-compose keys; True when it does."""
    found = [k for k in DOCKER_COMPOSE_KEYS if k in body]
    if found:
        out.error(
            where,
            f"{', '.join(found)} {'is a' if len(found) == 1 else 'are'} docker-compose "
            f"key{'s' if len(found) > 1 else ''}: this looks like a docker-compose file, "
            "which runs containers; jobs-tui runs commands (a process needs a command)",
        )
    return bool(found)


def env_value(out: Translation, where: str, value: Any) -> str | None:
    """A YAML value as an environment string: numbers become their text."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    out.error(where, f"must be a string, not {shown(value)}")
    return None


# -- mprocs.yaml --------------------------------------------------------------------------

MPROCS_KEYS = ("shell", "cmd", "cwd", "env", "autostart", "autorestart", "stop")
CONFIG_DIR = "<CONFIG_DIR>"


def read_mprocs(data: Any, file: str = "mprocs.yaml") -> Translation:
    """mprocs' `procs`: shell or cmd, cwd (`<CONFIG_DIR>` read as the file's folder, which
    relative paths are read from anyway), env, autostart; autorestart (as restart =
    "always") and a stop signal too."""
    out = Translation(file)
    if not isinstance(data, dict) or not isinstance(data.get("procs"), dict):
        out.error("procs", "missing: an mprocs.yaml lists its processes under procs")
        return out
    out.left_out("(top level)", [str(k) for k in data if k != "procs"], "are mprocs settings")
    for raw_name, body in data["procs"].items():
        name = str(raw_name)
        where = key("procs", name)
        out.origins[("jobs", name)] = where
        if not isinstance(body, dict):
            out.error(where, f"must be a mapping (shell: ...), not {shown(body)}")
            continue
        if not_docker_compose(out, where, body):
            continue
        _mprocs_proc(out, name, where, body)
    return out


def _mprocs_proc(out: Translation, name: str, where: str, body: dict[str, Any]) -> None:
    out.jobs.setdefault(name, {})
    shell, cmd = body.get("shell"), body.get("cmd")
    if shell is not None and cmd is not None:
        out.error(where, "takes shell or cmd, not both")
    elif shell is not None:
        out.put(name, "command", shell, f"{where}.shell")
    elif cmd is not None:
        if isinstance(cmd, list) and cmd and all(isinstance(w, str) for w in cmd):
            out.put(name, "command", shlex.join(cmd), f"{where}.cmd")
        else:
            out.error(f"{where}.cmd", f"must be a list of strings, not {shown(cmd)}")
    else:
        out.error(where, "missing: a process needs shell or cmd")
    if "cwd" in body:
        cwd = body["cwd"]
        if isinstance(cwd, str) and cwd.startswith(CONFIG_DIR):  # mprocs: the file's folder
            cwd = "." + cwd[len(CONFIG_DIR) :] if cwd != CONFIG_DIR else "."
        out.put(name, "cwd", cwd, f"{where}.cwd")
    if "autostart" in body:
        out.put(name, "autostart", body["autostart"], f"{where}.autostart")
    if body.get("autorestart") is True:
        out.put(name, "restart", "always", f"{where}.autorestart")
    elif body.get("autorestart") not in (None, False):
        out.error(
            f"{where}.autorestart", f"must be true or false, not {shown(body['autorestart'])}"
        )
    stop = body.get("stop")
    if isinstance(stop, str) and stop in STOP_SIGNALS:
        out.put(name, "stop_signal", stop, f"{where}.stop")
    elif stop is not None:
        out.warn(f"{where}.stop", f"{shown(stop)} is not a signal jobs-tui sends; left out")
    env = body.get("env")
    if isinstance(env, dict):
        table: dict[str, str] = {}
        for var, value in env.items():
            if value is None:
                out.warn(f"{where}.env.{var}", "unsetting a variable is not read; left out")
                continue
            text = env_value(out, f"{where}.env.{var}", value)
            if text is not None:
                table[str(var)] = text
        out.put(name, "env", table, f"{where}.env")
    elif env is not None:
        out.error(f"{where}.env", f"must be a mapping, not {shown(env)}")
    out.left_out(where, [str(k) for k in body if k not in MPROCS_KEYS])


# -- Procfile -----------------------------------------------------------------------------

_PROCFILE_LINE = re.compile(r"^([A-Za-z0-9_-]+)[ \t]*:[ \t]*(.*?)\s*$")


def read_procfile(text: str, file: str = "Procfile") -> Translation:
    """`name: command` lines (foreman's grammar); `#` comments and blank lines skipped."""
    out = Translation(file)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _PROCFILE_LINE.match(line)
        if not match:
            out.error(f"line {number}", "is not `name: command`")
            continue
        name, command = match.groups()
        if name in out.jobs:
            out.error(f"line {number}", f"{name} is declared twice")
            continue
        out.origins[("jobs", name)] = f"line {number} ({name})"
        out.put(name, "command", command, f"line {number} ({name})")
    return out
