"""The layering (issue 10): the import-linter contracts hold, no module outside
`engine/tools/` imports a vocabulary (not the core, not the screens, not the app's verbs;
not even lazily) but the MCP server, which is how agents reach the vocabularies, and the
vocabularies in `engine/tools/` use only `JobManager`'s public API."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "engine" / "tools"
# The one importer of the vocabularies: a transport that serves them to agents unchanged.
TRANSPORT = ROOT / "app" / "mcp"
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
    # the core, the screens, the app's verbs: never; the MCP server serves them as they are
    assert tools.get("allowed_importers", []) == ["jobs_tui.app.mcp"]
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


PACKAGES = {"engine": "jobs_tui.engine", "screens": "jobs_tui.screens", "app": "jobs_tui.app"}
VOCABULARIES = "jobs_tui.engine.tools"


def module_name(path: Path) -> str:
    """engine/tools/job.py -> jobs_tui.engine.tools.job; app/__init__.py -> jobs_tui.app."""
    top, *rest = path.relative_to(ROOT).with_suffix("").parts
    parts = [PACKAGES[top], *rest]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def vocabulary_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """Every import (at any depth: a lazy one in a function too, or importlib's) of
    `jobs_tui.engine.tools` or a module under it, relative imports resolved."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        if any(n == VOCABULARIES or n.startswith(VOCABULARIES + ".") for n in names):
            found.append(f"{ast.unparse(node)} (line {node.lineno})")
    return found


def test_the_import_scan_finds_every_way_in():
    planted = (
        "from jobs_tui.engine.tools.job import dispatch\n"
        "def f():\n"
        "    from ..engine.tools import ExecCommandTools\n"
        "    import jobs_tui.engine.tools.cursors\n"
        "    from jobs_tui.engine import tools\n"
        "    importlib.import_module('jobs_tui.engine.tools.schemas')\n"
        "from jobs_tui.engine.calls import toolschemas; from jobs_tui.engine.logs import unread\n"
        "from ..engine.toolschemas import all_schemas\n"
    )
    found = vocabulary_imports(planted, "jobs_tui.app.verbs")
    assert [f.rpartition("(line ")[2] for f in found] == ["1)", "3)", "4)", "5)", "6)"]
    assert vocabulary_imports("from .tools import job", "jobs_tui.engine", is_package=True)
    assert vocabulary_imports("from .. import tools", "jobs_tui.engine.session.manager")
    assert not vocabulary_imports("from .toolschemas import X", "jobs_tui.engine.session.manager")


def test_no_module_outside_the_tools_imports_them():
    """Issue 10: the vocabularies are adapters at the edge; everything else, the command
    line included, goes through JobManager's typed methods."""
    found = {}
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            if path.is_relative_to(TOOLS) or path.is_relative_to(TRANSPORT):
                continue
            name = module_name(path)
            uses = vocabulary_imports(path.read_text(), name, path.name == "__init__.py")
            if uses:
                found[name] = uses
    assert found == {}


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


# -- the rooms (issue 25): engine/<room>/, each a package, each in the layers ------------

ENGINE = ROOT / "engine"
SHIM = ENGINE / "shim"
# The shim's lazy non-Linux fallbacks; pyproject's shim contract names them, with why.
SHIM_FALLBACKS = {("procs.py", "psutil"), ("sweep.py", "psutil")}


def outside_the_shim(source: str, filename: str) -> list[str]:
    """Every import (at any depth) of a shim module that is neither the standard library
    nor the shim itself (`from .x`, `jobs_tui.engine.shim.x`), fallbacks apart."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 1:
                continue  # the shim's own folder
            names = ["." * node.level + (node.module or "")]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            own = name == "jobs_tui.engine.shim" or name.startswith("jobs_tui.engine.shim.")
            if own or top in sys.stdlib_module_names or (filename, top) in SHIM_FALLBACKS:
                continue
            found.append(f"{filename}:{node.lineno}: {name}")
    return found


def test_the_shim_scan_finds_what_is_not_the_standard_library():
    planted = (
        "import os, psutil\n"
        "from . import procs\n"
        "from jobs_tui.engine.shim.protocol import X\n"
        "def f():\n"
        "    from .. import config\n"
        "    from jobs_tui.engine.records import model\n"
        "    import ptyprocess\n"
    )
    assert outside_the_shim(planted, "x.py") == [
        "x.py:1: psutil",
        "x.py:5: ..",
        "x.py:6: jobs_tui.engine.records",
        "x.py:7: ptyprocess",
    ]
    assert outside_the_shim("import psutil", "procs.py") == []


def test_the_shim_imports_the_standard_library_and_itself_only():
    """It runs in every job's supervisor, started `python -I -S`: a third-party package is
    not even on its path (site-packages is not read), another room would slow its start."""
    found = [
        hit
        for path in sorted(SHIM.glob("*.py"))
        for hit in outside_the_shim(path.read_text(), path.name)
    ]
    assert found == []


def rooms() -> list[str]:
    return sorted(p.parent.name for p in ENGINE.glob("*/__init__.py"))


def test_every_room_is_a_layer_and_an_installed_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools = config["tool"]["setuptools"]
    (layers,) = [
        c for c in contracts() if c["type"] == "layers" and "jobs_tui.engine.shim" in c["layers"]
    ]
    named = {name.strip() for layer in layers["layers"] for name in layer.split("|")}
    assert len(rooms()) >= 8
    for room in rooms():
        package = f"jobs_tui.engine.{room}"
        assert package in named, package
        assert package in setuptools["packages"], package
        assert setuptools["package-dir"][package] == f"engine/{room}", package


def test_no_room_holds_more_than_twenty_modules():
    sizes = {room: len(list((ENGINE / room).glob("*.py"))) - 1 for room in rooms()}
    assert max(sizes.values()) <= 20, sizes
    # at the top: the public API (__init__) and the config everyone reads, nothing else
    assert {p.stem for p in ENGINE.glob("*.py")} == {"__init__", "config"}
