"""The shim's protocol (issue 10, item 5): one stdlib-only module types the start spec,
every request and every event, and every file name comes from `RegistryPaths`."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

from jobs_tui.engine.config import Config
from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.engine.registry.paths import RegistryPaths
from jobs_tui.engine.session.launch import start_spec
from jobs_tui.engine.shim import protocol

ENGINE = Path(protocol.__file__).parents[1]  # engine/, the shim's `jobs_tui.engine`


def typed() -> dict[str, Any]:
    """protocol.py's names as a type checker sees them (its TypedDicts defined)."""
    source = Path(protocol.__file__).read_text()
    assert source.count("TYPE_CHECKING = False") == 1
    names: dict[str, Any] = {"__name__": "protocol_typed"}
    code = compile(source.replace("TYPE_CHECKING = False", "TYPE_CHECKING = True"), "p", "exec")
    exec(code, names)
    return names


def keys(typed_dict: Any) -> set[str]:
    return set(typed_dict.__required_keys__ | typed_dict.__optional_keys__)


def test_the_protocol_module_imports_nothing_when_the_shim_runs():
    # As the shim starts (launch._BOOTSTRAP): `python -I -S`, the engine a bare package.
    code = (
        "import sys, types\n"
        "top = types.ModuleType('jobs_tui'); top.__path__ = []\n"
        "eng = types.ModuleType('jobs_tui.engine'); eng.__path__ = [sys.argv[1]]\n"
        "sys.modules.update({'jobs_tui': top, 'jobs_tui.engine': eng})\n"
        "before = set(sys.modules)\n"
        "from jobs_tui.engine.shim import protocol\n"
        "print(sorted(set(sys.modules) - before))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(ENGINE)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert eval(done.stdout) == ["jobs_tui.engine.shim", "jobs_tui.engine.shim.protocol"]


def test_every_request_and_event_is_typed_and_documented():
    names = typed()
    ops = {v for k, v in vars(protocol).items() if k.startswith("OP_")}
    events = {v for k, v in vars(protocol).items() if k.startswith("EV_")}
    assert ops == {"watch", "state", "send", "kill", "owner", "resize", "resume", "input"}
    assert events == {
        *("state", "output", "log-lost", "exit", "gone", "remaining", "phase"),
        *("repeating", "output-limit"),
    }
    doc = protocol.__doc__ or ""
    for op in ops:
        assert f'{{"op": "{op}"' in doc, op
    for event in events - {"state"}:
        assert f'{{"ev": "{event}"' in doc, event
    requests = {name: names[name] for name in ("WatchRequest", "SendRequest", "KillRequest")}
    assert {"op", "data", "eof"} == keys(requests["SendRequest"])
    assert {"op", "signal", "graceMs", "reason", "stop"} == keys(requests["KillRequest"])
    assert keys(names["LogLostEvent"]) == {"ev", "lostBytes", "logNote"}
    assert keys(names["GoneEvent"]) == {"ev", "escalated", "processes"}
    assert keys(names["RemainingEvent"]) == {"ev", "remaining"}
    assert keys(names["ResumeRequest"]) == {"op", "maxOutputBytes"}
    assert keys(names["RepeatingEvent"]) == {"ev", "repeating"}
    assert keys(names["Repeating"]) == {"line", "count", "since", "ongoing", "approx"}
    assert keys(names["ExitFields"]) <= keys(names["StateEvent"])


def test_the_start_spec_is_what_launch_builds(tmp_path: Path):
    paths = RegistryPaths(tmp_path)
    record = JobRecord(
        id="j7",
        label="x",
        command="true",
        cwd=str(tmp_path),
        pid=None,
        status=JobStatus.RUNNING,
        exit_code=None,
        signal=None,
        started_at=0,
        finished_at=None,
        log_path=str(paths.log("j7")),
        status_path=str(paths.status("j7")),
        detached=False,
        wake=False,
        session_id="s",
    )
    spec = start_spec(record, paths, Config(), None, "m", 80, 24)
    # readyFd, holdFd: added by spawn; declared: a declared job's only; the output's
    # watches (issue 27): taken by the shim, not passed by the session yet
    later = {"repeatLimit", "maxOutputBytes", "onLimit"}
    assert set(spec) | {"readyFd", "holdFd", "declared"} | later == keys(typed()["StartSpec"])
    assert spec["previous"] == str(paths.previous_log("j7"))
    assert spec["end"] == str(paths.end("j7")) and spec["socket"] == str(paths.socket("j7"))


def _string_constants(path: Path) -> list[tuple[int, str]]:
    """String literals of a module (f-string pieces too), docstrings left out."""
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            docstrings.add(id(first.value))
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    )


# Pieces of the registry directory's file names; paths.py and protocol.py spell them.
NAME_PIECES = ("persist-", "cursors-", ".base", ".adopting-", ".log.1", ".corrupt-")


def spelled_names(path: Path) -> list[str]:
    return [
        f"{path.name}:{line}: {value!r}"
        for line, value in _string_constants(path)
        if any(piece in value for piece in NAME_PIECES)
    ]


def test_the_scan_finds_a_spelled_file_name(tmp_path: Path):
    planted = tmp_path / "x.py"
    planted.write_text(
        '"""A .base doc."""\nlock = root / f"persist-{h}.lock"\nbase = p + ".base"\n'
    )
    assert [s.split(": ", 1)[1] for s in spelled_names(planted)] == ["'persist-'", "'.base'"]


def test_every_file_name_comes_from_registry_paths():
    allowed = {"paths.py", "protocol.py"}
    found = [
        hit
        for path in sorted(ENGINE.rglob("*.py"))
        if path.name not in allowed
        for hit in spelled_names(path)
    ]
    assert found == []
