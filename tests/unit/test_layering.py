"""The layering (issue 10): the import-linter contracts hold, and the vocabularies in
`engine/tools/` use only `JobManager`'s public API."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "engine" / "tools"
LINT_IMPORTS = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def contracts() -> list[dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return config["tool"]["importlinter"]["contracts"]


def test_the_contracts_state_the_layering():
    forbidden = {
        frozenset(c["source_modules"]): set(c["forbidden_modules"])
        for c in contracts()
        if c["type"] == "forbidden"
    }
    engine = forbidden[frozenset({"jobs_tui.engine"})]
    assert engine >= {"textual", "rich", "jobs_tui.screens", "jobs_tui.app"}
    assert engine >= {"mcp", "pyte", "textual_serve"}
    assert forbidden[frozenset({"jobs_tui.screens"})] == {"jobs_tui.app"}
    (tools,) = [c for c in contracts() if c["type"] == "protected"]
    assert tools["protected_modules"] == ["jobs_tui.engine.tools"]
    assert tools["allowed_importers"] == ["jobs_tui.app"]  # the core: never
    assert "ignore_imports" not in tools  # no exception, not even a lazy import


def test_lint_imports_keeps_every_contract():
    done = subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert f"Contracts: {len(contracts())} kept, 0 broken." in done.stdout


_MANAGER_NAMES = {"jm", "manager", "mgr"}


def _is_manager(node: ast.expr) -> bool:
    """`jm`, `manager`, `self.jm`, `self.manager`, `self._jm`: a JobManager in the tools."""
    if isinstance(node, ast.Name):
        return node.id in _MANAGER_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr.lstrip("_") in _MANAGER_NAMES
    return False


def private_manager_uses(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and _is_manager(node.value)
        ):
            found.append((node.lineno, f"{ast.unparse(node)} (line {node.lineno})"))
    return [text for _line, text in sorted(found)]


def test_the_scan_finds_private_manager_members():
    planted = "async def f(manager, self):\n    await manager._start(c)\n    self.jm._links\n"
    assert private_manager_uses(planted) == ["manager._start (line 2)", "self.jm._links (line 3)"]
    assert private_manager_uses("jm.start(); self.jm.get(x); other._x") == []


def test_the_vocabularies_call_no_private_manager_member():
    used = {
        path.name: private_manager_uses(path.read_text()) for path in sorted(TOOLS.glob("*.py"))
    }
    assert {name: uses for name, uses in used.items() if uses} == {}
