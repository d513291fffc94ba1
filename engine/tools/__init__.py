"""The tool vocabularies agents speak, as thin facades over one `JobManager`.

- `job` (seeds/002): `JobTools`, schema `jobs_tui.engine.job_tool_schema()`.
- `exec_command` / `write_stdin` / `list_sessions` / `set_on_exit` / `kill_session`
  (seeds/000): `ExecCommandTools`.
- `exec` / `process` (seeds/003): `ProcessTools`.

`all_schemas()` returns the JSON Schemas of all three. Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jobs_tui.engine.calls.toolschemas import all_schemas

    from .cursors import UnreadCursors
    from .exec_command import ExecCommandTools
    from .job import JobTools
    from .process import ProcessTools

__all__ = ["ExecCommandTools", "JobTools", "ProcessTools", "UnreadCursors", "all_schemas"]

_LAZY = {
    "ExecCommandTools": "exec_command",
    "JobTools": "job",
    "ProcessTools": "process",
    "UnreadCursors": "cursors",
    "all_schemas": ".calls.toolschemas",  # the core's (pure data), re-exported
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jobs_tui.engine.tools' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
