"""Gemini CLI (0.61): `mcpServers.jobs` and `hooks` in `.gemini/settings.json`.

Found in its package (`bundle/docs/hooks/reference.md`, `docs/cli/trusted-folders.md`,
`docs/reference/configuration.md`, the bundle's TrustLevel): hooks are `hooks.<Event>` =
`[{matcher?, hooks: [{type: "command", command, name, timeout}]}]` with `timeout` in
milliseconds; the events are BeforeAgent (a prompt was submitted), AfterTool, AfterAgent
(the turn ends); hooks run unless `hooksConfig.enabled` is false. A folder not trusted
ignores its `.gemini/settings.json` and starts no MCP server; trust is
`{"<folder>": "TRUST_FOLDER"}` in `~/.gemini/trustedFolders.json`
(`GEMINI_CLI_TRUSTED_FOLDERS_PATH` moves it). `trust: true` on a server runs its tools
without a confirmation (headless `gemini -p` would refuse them otherwise).
"""

from __future__ import annotations

from pathlib import Path

from . import hooks, launcher
from .jsonedit import JsonKey
from .model import FilePlan, Plan
from .where import Where

EVENTS = {"prompt": "BeforeAgent", "tool": "AfterTool", "stop": "AfterAgent"}
TRUST_LEVEL = "TRUST_FOLDER"


def trusted_folders(where: Where) -> Path:
    value = where.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(value) if value else where.home / ".gemini" / "trustedFolders.json"


def plan(where: Where) -> Plan:
    folder = where.home / ".gemini" if where.user else where.root / ".gemini"
    server = {"command": where.words[0], "args": [*where.words[1:], "mcp"], "trust": True}
    names = {e: {"name": f"jobs-tui-{e}"} for e in EVENTS}
    items = [
        JsonKey(("mcpServers", "jobs"), server, "mcpServers.jobs"),
        *hooks.members(where.words, "gemini", EVENTS, launcher.STOP_TIMEOUT_S * 1000, names),
    ]
    files = [FilePlan(folder / "settings.json", "json", items)]
    notes: list[str] = []
    if where.user:
        notes.append(
            "gemini starts no MCP server in a folder it does not trust (the server shows "
            "Disabled): run `gemini` in each project and choose Trust folder, or "
            "`jobs-tui setup gemini` there"
        )
    else:
        if where.below_root():
            notes.append(
                f"gemini reads .gemini/settings.json only in the folder it starts in: start it "
                f"in {where.root}"
            )
        if where.trust:
            trust = JsonKey(
                (str(where.root),), TRUST_LEVEL, f"{where.root}: {TRUST_LEVEL}", respect=True
            )
            files.append(FilePlan(trusted_folders(where), "json", [trust]))
        else:
            notes.append(
                "gemini ignores .gemini/settings.json in a folder it does not trust: run "
                "`gemini` here and choose Trust folder (or set GEMINI_CLI_TRUST_WORKSPACE=true)"
            )
    return Plan("gemini", where.scope, where.root, where.root_reason, files, notes)
