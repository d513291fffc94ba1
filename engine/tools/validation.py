"""Checking a tool call against its JSON Schema: the core's one checker, for the vocabularies.

`check` lives in the core (`jobs_tui.engine.calls.schemacheck`) so the `job` tool's validation
needs no vocabulary; the exec_command and process families use it through this module.
"""

from __future__ import annotations

from jobs_tui.engine.calls.schemacheck import ToolInputError, check, quote

__all__ = ["ToolInputError", "check", "clamp", "quote"]


def clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))
