"""What the Codex, Gemini CLI and opencode tests share: the clients' paths, a sealed
environment (throwaway HOME, no proxy, no key but a fake one), the jobs-tui under test,
and the served tool list to compare a client's against.

Every client runs with HOME in the test's tmp_path and talks only to 127.0.0.1: the
model is a fake, and nothing in these environments points anywhere else.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from .npm_cache import npm_package

JOBS_TUI = Path(sys.executable).with_name("jobs-tui")


def client_bin(name: str, package: str, major: int, binary: str) -> Path:
    """The client's launcher in the npm cache (installed there once)."""
    return npm_package(name, package, major) / "node_modules" / ".bin" / binary


def sealed_env(home: Path, model_url: str, **extra: str) -> dict[str, str]:
    """A client's environment: HOME is the test's, PATH has node but not this venv's bin
    (so setup must write the absolute jobs-tui), no real credentials, and every proxy
    variable on the fake model, so a call meant for the outside world lands in its log
    (as an unknown path) instead of on the network."""
    node = shutil.which("node")
    assert node, "the agents tests need node on PATH"
    dirs = [str(Path(node).parent), "/usr/local/bin", "/usr/bin", "/bin"]
    env = {
        "HOME": str(home),
        "PATH": os.pathsep.join(dict.fromkeys(dirs)),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "HTTPS_PROXY": model_url,
        "HTTP_PROXY": model_url,
        "https_proxy": model_url,
        "http_proxy": model_url,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    env.update(extra)
    home.mkdir(parents=True, exist_ok=True)
    return env


def run(
    argv: list[str | os.PathLike[str]],
    env: dict[str, str],
    cwd: Path,
    timeout: float = 120,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=stdin if stdin is not None else "",
    )


def served_tools(registry: Path, cwd: Path) -> dict[str, dict[str, Any]]:
    """The tools `jobs-tui mcp` serves, by name, asked over its own stdio (no client)."""
    proc = subprocess.Popen(
        [str(JOBS_TUI), "mcp", "--registry-dir", str(registry)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )
    assert proc.stdin and proc.stdout

    def send(message: dict[str, Any]) -> None:
        assert proc.stdin
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"},
                },
            }
        )
        proc.stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        listed = json.loads(proc.stdout.readline())
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    return {t["name"]: t for t in listed["result"]["tools"]}


JSON_TYPES = {
    "string": str,
    "boolean": bool,
    "object": dict,
    "array": list,
    "null": type(None),
}


def _of_type(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, JSON_TYPES[kind])


def schema_faults(schema: Any, where: str = "") -> list[str]:
    """What in a schema (as a client handed it to the model) contradicts itself: a `const`,
    an `enum` whose values are not of the declared type (Codex's `{"type": "string",
    "enum": [true]}`), an unknown type, or such a fault in any subschema."""
    faults: list[str] = []
    if not isinstance(schema, dict):
        return [f"{where or '/'}: not a schema object: {schema!r}"]
    if "const" in schema:
        faults.append(f"{where or '/'}: const {schema['const']!r}")
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else (kinds or [])
    for kind in kinds:
        if kind not in (*JSON_TYPES, "integer", "number"):
            faults.append(f"{where or '/'}: unknown type {kind!r}")
    known = [k for k in kinds if k in (*JSON_TYPES, "integer", "number")]
    if "enum" in schema and known:
        for value in schema["enum"]:
            if not any(_of_type(value, k) for k in known):
                faults.append(f"{where or '/'}: enum value {value!r} is not of type {kinds}")
    for key in ("properties", "$defs", "definitions"):
        for name, sub in (schema.get(key) or {}).items():
            faults += schema_faults(sub, f"{where}/{key}/{name}")
    for key in ("items", "additionalProperties", "not"):
        if isinstance(schema.get(key), dict):
            faults += schema_faults(schema[key], f"{where}/{key}")
    for key in ("allOf", "anyOf", "oneOf"):
        for n, sub in enumerate(schema.get(key) or []):
            faults += schema_faults(sub, f"{where}/{key}/{n}")
    return faults


def kept_parameters(served: dict[str, Any], given: dict[str, Any]) -> list[str]:
    """What a client lost or changed of a served input schema: a property gone, a
    property's type or enum changed, `required` changed. A property the client adds for
    itself (Gemini CLI's `wait_for_previous`) is no fault unless it is required."""
    faults = []
    sp, gp = served.get("properties") or {}, given.get("properties") or {}
    if set(sp) - set(gp):
        faults.append(f"properties {sorted(set(sp) - set(gp))} are gone")
    for name in set(sp) & set(gp):
        if sp[name].get("type") != gp[name].get("type"):
            faults.append(f"{name}: type {sp[name].get('type')!r} became {gp[name].get('type')!r}")
        if "enum" in sp[name] and sp[name]["enum"] != gp[name].get("enum"):
            faults.append(f"{name}: enum {sp[name]['enum']} became {gp[name].get('enum')}")
    if sorted(served.get("required") or []) != sorted(given.get("required") or []):
        faults.append(f"required {served.get('required')} became {given.get('required')}")
    if given.get("type") != "object":
        faults.append(f"top-level type {given.get('type')!r}")
    return faults


def save_log(entries: list[Any], path: Path) -> Path:
    """The fake model's request log as JSON lines (line N is request N-1), kept in the
    test's tmp_path so a figure can cite the line where the model saw something."""
    with open(path, "w") as out:
        for r in entries:
            row = {"index": r.index, "method": r.method, "path": r.path, "known": r.known}
            out.write(json.dumps({**row, "body": r.body}, ensure_ascii=False) + "\n")
    return path


def added_parameters(served: dict[str, Any], given: dict[str, Any]) -> list[str]:
    """The properties a client added to a served input schema (for the figures)."""
    return sorted(set(given.get("properties") or {}) - set(served.get("properties") or {}))
