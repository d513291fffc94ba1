"""Claude Code (2.1.x): `.mcp.json` + `.claude/settings.local.json`, or the user's files.

Found in its binary (`claude-code-linux-x64/claude`, strings): project servers are
`mcpServers` in `.mcp.json` and stay "pending" (not started) until approved, which it
records as `enabledMcpjsonServers` in `.claude/settings.local.json` (also read:
`enableAllProjectMcpServers`; setup approves only `jobs`). User scope is `mcpServers`
in `~/.claude.json` (`claude mcp add -s user`), which needs no approval. Hooks:
`hooks.<Event>` = `[{matcher?, hooks: [{type: "command", command, timeout}]}]` in a
settings file, `timeout` in seconds; events UserPromptSubmit, PostToolUse, Stop.
`CLAUDE_CONFIG_DIR` moves `~/.claude` and `~/.claude.json` (and a legacy
`.claude/.config.json`, when there, is read instead of `.claude.json`).
"""

from __future__ import annotations

import json
from pathlib import Path

from . import files as disk
from . import hooks, launcher
from .jsonedit import JsonKey, JsonMember
from .model import FilePlan, Plan, SetupError
from .where import Where

EVENTS = {"prompt": "UserPromptSubmit", "tool": "PostToolUse", "stop": "Stop"}


def server(words: list[str]) -> dict:
    # alwaysLoad: `claude -p` sends its first request without waiting for a server to
    # connect unless the entry says so; under load that first turn had no jobs tools
    # (tests/agents/test_claude_code.py, 3 runs of 3 without it).
    return {
        "type": "stdio",
        "command": words[0],
        "args": [*words[1:], "mcp"],
        "env": {},
        "alwaysLoad": True,
    }


def _rejected(settings: Path) -> bool:
    """`jobs` among the servers the person rejected (claude reads that before approvals)."""
    try:
        doc = json.loads(disk.read(settings) or "{}")
    except (ValueError, SetupError):
        return False  # refused, or said, when the file itself is merged
    names = doc.get("disabledMcpjsonServers") if isinstance(doc, dict) else None
    return isinstance(names, list) and "jobs" in names


def plan(where: Where) -> Plan:
    config_dir = where.environ.get("CLAUDE_CONFIG_DIR")
    hook_items = hooks.members(where.words, "claude", EVENTS, launcher.STOP_TIMEOUT_S)
    key = JsonKey(("mcpServers", "jobs"), server(where.words), "mcpServers.jobs")
    if where.user:
        claude_dir = Path(config_dir) if config_dir else where.home / ".claude"
        legacy = claude_dir / ".config.json"  # read instead of .claude.json when it exists
        base = Path(config_dir) if config_dir else where.home
        global_file = legacy if legacy.exists() else base / ".claude.json"
        files = [
            FilePlan(global_file, "json", [key]),
            FilePlan(claude_dir / "settings.json", "json", hook_items),
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
        if _rejected(where.root / ".claude" / "settings.local.json"):
            notes.append(
                "jobs is in disabledMcpjsonServers of .claude/settings.local.json (you "
                "rejected it in claude once), which claude reads first: take it out there, "
                "or run `claude mcp reset-project-choices`"
            )
        if not (where.root / ".git").exists():
            notes.append(
                "not a git checkout: an interactive claude reads the approval in "
                ".claude/settings.local.json only once you trust this folder (claude -p "
                "does not ask)"
            )
    return Plan("claude", where.scope, where.root, where.root_reason, files, notes)
