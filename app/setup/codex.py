"""Codex CLI (0.171): `[mcp_servers.jobs]` in config.toml, hooks in hooks.json.

Found by running its binary (`codex mcp list --json`, its config errors) and in the
strings of `codex-linux-x64/.../bin/codex`: the server table takes `command`, `args`,
`env_vars` (names of variables passed through: Codex gives a server only HOME, PATH,
LANG, SHELL, TERM otherwise) and `default_tools_approval_mode` (`auto`, `prompt`,
`writes`, `approve`; `approve` lets `codex exec` call our tools without asking). A
project's `.codex/` (config.toml and hooks.json) is read only when
`[projects."<root>"] trust_level = "trusted"` is in the user's config.toml: `codex mcp
list` in an untrusted project shows no server. Hooks (feature `hooks`, stable and on,
no flag needed) are `hooks.json` = `{"hooks": {"UserPromptSubmit"|"PostToolUse"|"Stop":
[{hooks: [{type: "command", command, timeout}]}]}}`, `timeout` in seconds. `CODEX_HOME`
moves `~/.codex`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from . import files, hooks, launcher
from .jsonedit import JsonMember
from .model import FilePlan, Plan
from .tomledit import TomlKey, TomlTable
from .where import Where

EVENTS = {"prompt": "UserPromptSubmit", "tool": "PostToolUse", "stop": "Stop"}
LABELS = {"UserPromptSubmit": "user_prompt_submit", "PostToolUse": "post_tool_use", "Stop": "stop"}
DEFAULT_TIMEOUT_S = 600  # what Codex takes for a hook without `timeout` (and hashes so)


def codex_home(where: Where) -> Path:
    value = where.environ.get("CODEX_HOME")
    return Path(value) if value else where.home / ".codex"


def server_table(where: Where) -> TomlTable:
    body: dict = {"command": where.words[0], "args": [*where.words[1:], "mcp"]}
    passed = launcher.path_variables_set(where.environ)
    if passed:
        body["env_vars"] = passed
    body["default_tools_approval_mode"] = "approve"
    return TomlTable(("mcp_servers", "jobs"), body, "mcp_servers.jobs")


def trusted_hash(label: str, group: dict[str, Any]) -> str:
    """The hash Codex keeps in `[hooks.state."<key>"] trusted_hash` for a hook it may run:
    sha256 of the compact, key-sorted JSON of `{event_name, hooks: [the handler]}`, the
    handler with its defaults (`timeout` 600, `async` false) and no null fields. Codex runs
    a hook of hooks.json only when this matches (else it is "untrusted"); setup trusts the
    hooks it writes itself, as `/hooks` in Codex would. Checked against `codex app-server`'s
    `hooks/list` (`currentHash`) for 0.171."""
    [handler] = group["hooks"]
    normal = {
        "type": "command",
        "command": handler["command"],
        "timeout": handler.get("timeout", DEFAULT_TIMEOUT_S),
        "async": False,
    }
    identity = {"event_name": label, "hooks": [normal]}
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def trust_items(hooks_file: Path, text: str | None, members: list[JsonMember]) -> list[TomlKey]:
    """`[hooks.state."<hooks.json>:<event>:<group>:0"] trusted_hash` for each hook of ours,
    at the index its group has (or will have, appended) in that event's list."""
    try:
        doc = json.loads(text) if text and text.strip() else {}
    except ValueError:
        doc = {}  # refused when hooks.json itself is merged
    events = doc.get("hooks", {}) if isinstance(doc, dict) else {}
    out = []
    for member in members:
        event = member.path[-1]
        groups = events.get(event, []) if isinstance(events, dict) else []
        groups = groups if isinstance(groups, list) else []
        index = groups.index(member.value) if member.value in groups else len(groups)
        key = f"{hooks_file}:{LABELS[event]}:{index}:0"
        value = trusted_hash(LABELS[event], member.value)
        out.append(
            TomlKey(("hooks", "state", key), "trusted_hash", value, f"hooks.state ({event})")
        )
    return out


def plan(where: Where) -> Plan:
    home = codex_home(where)
    folder = home if where.user else where.root / ".codex"
    hook_items = hooks.members(where.words, "codex", EVENTS, launcher.STOP_TIMEOUT_S)
    hooks_file = folder / "hooks.json"
    trusted = trust_items(hooks_file, files.read(hooks_file), hook_items) if where.trust else []
    config_items: list[Any] = [server_table(where)]
    user_items: list[Any] = []
    notes: list[str] = []
    if where.user:
        config_items += trusted
    elif where.trust:
        project = TomlKey(
            ("projects", str(where.root)),
            "trust_level",
            "trusted",
            f'projects."{where.root}".trust_level',
            respect=True,
        )
        user_items = [project, *trusted]
    else:
        notes.append(
            "codex reads .codex/ only in a trusted project: run `codex` here once and "
            "trust it (or `codex exec --trust`)"
        )
    if not where.trust:
        notes.append("codex runs a hook only once trusted: trust jobs-tui's in codex's /hooks")
    config = FilePlan(folder / "config.toml", "toml", config_items)
    plans = [config, FilePlan(hooks_file, "json", hook_items)]
    if user_items:
        plans.append(FilePlan(home / "config.toml", "toml", user_items))
    return Plan("codex", where.scope, where.root, where.root_reason, plans, notes)
