"""The hook entries setup writes, shared by the clients that have hooks.

Each client has its own names for the three moments jobs-tui's hook handles (the S/K
contract: `prompt`, `tool`, `stop`) and its own unit for a hook's timeout. A hook group
is `{"hooks": [{"type": "command", "command": ..., "timeout": ...}]}` in all three
clients (no `matcher`: every tool, every prompt).
"""

from __future__ import annotations

from typing import Any

from . import launcher
from .jsonedit import JsonMember


def group(command: str, timeout: int | None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    hook: dict[str, Any] = {"type": "command", "command": command}
    hook.update(extra or {})
    if timeout is not None:
        hook["timeout"] = timeout
    return {"hooks": [hook]}


def members(
    words: list[str],
    client: str,
    events: dict[str, str],
    stop_timeout: int,
    extra: dict[str, dict[str, Any]] | None = None,
) -> list[JsonMember]:
    """One hook group per event of `events` (jobs-tui's event -> the client's name)."""
    out = []
    for ours, theirs in events.items():
        command = launcher.hook_command(words, ours, client)
        timeout = stop_timeout if ours == "stop" else None
        value = group(command, timeout, (extra or {}).get(ours))
        out.append(JsonMember(("hooks", theirs), value, f"hooks.{theirs}"))
    return out
