"""Claude Code (2.1.x): `.mcp.json` + `.claude/settings.local.json`, or the user's files.

Found in its binary (`claude-code-linux-x64/claude`, strings): project servers are
`mcpServers` in `.mcp.json` and stay "pending" (not started) until approved, which it
records as `enabledMcpjsonServers` in `.claude/settings.local.json` (also read:
`enableAllProjectMcpServers`; setup approves only `jobs`). User scope is `mcpServers`
in `~/.claude.json` (`claude mcp add -s user`), which needs no approval. Hooks:
`hooks.<Event>` = `[{matcher?, hooks: [{type: "command", command, timeout}]}]` in a
settings file, `timeout` in seconds; events UserPromptSubmit, PostToolUse, Stop.
`CLAUDE_CONFIG_DIR` moves `~/.claude` and `~/.claude.json`.
"""

from __future__ import annotations

from pathlib import Path

from . import hooks, launcher
from .jsonedit import JsonKey, JsonMember
from .model import FilePlan, Plan
from .where import Where

EVENTS = {"prompt": "UserPromptSubmit", "tool": "PostToolUse", "stop": "Stop"}


def server(words: list[str]) -> dict:
    return {"type": "stdio", "command": words[0], "args": [*words[1:], "mcp"], "env": {}}


def plan(where: Where) -> Plan:
    config_dir = where.environ.get("CLAUDE_CONFIG_DIR")
    hook_items = hooks.members(where.words, "claude", EVENTS, launcher.STOP_TIMEOUT_S)
    key = JsonKey(("mcpServers", "jobs"), server(where.words), "mcpServers.jobs")
    if where.user:
        base = Path(config_dir) if config_dir else where.home
        settings = (Path(config_dir) if config_dir else where.home / ".claude") / "settings.json"
        files = [
            FilePlan(base / ".claude.json", "json", [key]),
            FilePlan(settings, "json", hook_items),
        ]
        notes = []
    else:
        approve = JsonMember(("enabledMcpjsonServers",), "jobs", "enabledMcpjsonServers: jobs")
        files = [
            FilePlan(where.root / ".mcp.json", "json", [key]),
            FilePlan(
                where.root / ".claude" / "settings.local.json", "json", [approve, *hook_items]
            ),
        ]
        notes = []
        if where.below_root():
            notes.append(
                f"claude finds .mcp.json from a subfolder but reads .claude/settings.local.json "
                f"(the approval, the hooks) only in the folder it starts in: start it in "
                f"{where.root}"
            )
        if not (where.root / ".git").exists():
            notes.append(
                "not a git checkout: an interactive claude reads the approval in "
                ".claude/settings.local.json only once you trust this folder (claude -p "
                "does not ask)"
            )
    return Plan("claude", where.scope, where.root, where.root_reason, files, notes)
