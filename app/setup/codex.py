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

from pathlib import Path

from . import hooks, launcher
from .model import FilePlan, Plan
from .tomledit import TomlKey, TomlTable
from .where import Where

EVENTS = {"prompt": "UserPromptSubmit", "tool": "PostToolUse", "stop": "Stop"}


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


def plan(where: Where) -> Plan:
    home = codex_home(where)
    folder = home if where.user else where.root / ".codex"
    hook_items = hooks.members(where.words, "codex", EVENTS, launcher.STOP_TIMEOUT_S)
    config = FilePlan(folder / "config.toml", "toml", [server_table(where)])
    files = [config, FilePlan(folder / "hooks.json", "json", hook_items)]
    notes: list[str] = []
    if not where.user:
        if where.trust:
            trust = TomlKey(
                ("projects", str(where.root)),
                "trust_level",
                "trusted",
                f'projects."{where.root}".trust_level',
                respect=True,
            )
            files.append(FilePlan(home / "config.toml", "toml", [trust]))
        else:
            notes.append(
                "codex reads .codex/ only in a trusted project: run `codex` here once and "
                "trust it (or `codex exec --trust`)"
            )
    return Plan("codex", where.scope, where.root, where.root_reason, files, notes)
