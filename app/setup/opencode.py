"""opencode (1.18): `mcp.jobs` = `{type: "local", command: [...]}` in `opencode.json`.

Found in its binary (`opencode-linux-x64/bin/opencode`): the schema `McpLocalConfig`
(`type`, `command` as an array of words, `environment`, `enabled`, `timeout`), and the
files `mcp add` picks: in the project the first of `opencode.json`, `opencode.jsonc`,
`.opencode/opencode.json`, `.opencode/opencode.jsonc` that exists (else `opencode.json`);
for the user `$XDG_CONFIG_HOME/opencode/` (`~/.config/opencode/`). opencode passes its
own environment to the server, so no `environment` is needed. It has no hooks of ours.
"""

from __future__ import annotations

from pathlib import Path

from .jsonedit import JsonKey
from .model import FilePlan, Plan
from .where import Where

NO_HOOKS = "opencode has no hooks setup writes: a finish reaches the model through job_wait"


def _config_file(folder: Path, project: bool) -> Path:
    names = [folder / "opencode.json", folder / "opencode.jsonc"]
    if project:
        names += [folder / ".opencode" / "opencode.json", folder / ".opencode" / "opencode.jsonc"]
    return next((n for n in names if n.exists()), names[0])


def plan(where: Where) -> Plan:
    folder = where.xdg_config() / "opencode" if where.user else where.root
    server = {"type": "local", "command": [*where.words, "mcp"]}
    item = JsonKey(("mcp", "jobs"), server, "mcp.jobs")
    files = [FilePlan(_config_file(folder, not where.user), "json", [item])]
    return Plan("opencode", where.scope, where.root, where.root_reason, files, [NO_HOOKS])
