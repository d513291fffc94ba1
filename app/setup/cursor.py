"""Cursor: `mcpServers.jobs` = `{command, args}` in `.cursor/mcp.json` (project) or
`~/.cursor/mcp.json` (user). Cursor runs no hooks of ours: a finish reaches the model
through `job_wait`."""

from __future__ import annotations

from .jsonedit import JsonKey
from .model import FilePlan, Plan
from .where import Where

NO_HOOKS = "cursor has no hooks setup writes: a finish reaches the model through job_wait"


def plan(where: Where) -> Plan:
    base = where.home if where.user else where.root
    server = {"command": where.words[0], "args": [*where.words[1:], "mcp"]}
    item = JsonKey(("mcpServers", "jobs"), server, "mcpServers.jobs")
    files = [FilePlan(base / ".cursor" / "mcp.json", "json", [item])]
    return Plan("cursor", where.scope, where.root, where.root_reason, files, [NO_HOOKS])
