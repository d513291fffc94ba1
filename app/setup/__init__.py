"""`jobs-tui setup CLIENT`: register `jobs-tui mcp` (and its hooks) with a coding agent.

Modules: one per client (`claude`, `codex`, `gemini`, `opencode`, `cursor`) turns where
this call is (`where`) into a plan of files and entries; `jsonedit` and `tomledit` merge
those entries into a file's text and take them out again (pure); `apply` reads every file
first, then writes (`files`: atomic, modes) and keeps the record of what it added
(`ledger`); `report` says it. This module declares the verb's options and runs it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`: the command line imports this module to parse
if TYPE_CHECKING:
    import argparse

CLIENTS = ("claude", "codex", "gemini", "opencode", "cursor")
DESCRIPTION = "register jobs-tui's MCP server (and hooks) with a coding agent"
EPILOG = """\
Project-level by default: the current directory's project (the folder above it with
.git, .hg, .jj or .jobs-tui, else the directory itself). Running it again changes
nothing; --remove takes out exactly what setup added. Files it cannot parse are left
untouched (exit 2).

  claude    .mcp.json, .claude/settings.local.json (approval, hooks)
            --user: ~/.claude.json, ~/.claude/settings.json
  codex     .codex/config.toml, .codex/hooks.json, and the project's trust in
            ~/.codex/config.toml;  --user: ~/.codex/config.toml, ~/.codex/hooks.json
  gemini    .gemini/settings.json (server, hooks), the folder's trust in
            ~/.gemini/trustedFolders.json;  --user: ~/.gemini/settings.json
  opencode  opencode.json;  --user: ~/.config/opencode/opencode.json (no hooks)
  cursor    .cursor/mcp.json;  --user: ~/.cursor/mcp.json (no hooks)
"""


def _client(text: str) -> str:
    import argparse

    if text not in CLIENTS:
        raise argparse.ArgumentTypeError(f"unknown client {text!r}; one of: {', '.join(CLIENTS)}")
    return text


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verb's options; its epilog says which files each client gets. The global
    --session and --registry-dir mean nothing here: hidden, and refused (`run_verb`)."""
    import argparse

    p.epilog = EPILOG
    for action in p._actions:
        if {"--session", "--registry-dir"} & set(action.option_strings):
            action.help = argparse.SUPPRESS
    p.add_argument("client", nargs="?", type=_client, metavar="CLIENT", help=" | ".join(CLIENTS))
    p.add_argument("--user", action="store_true", help="the user's own config, not the project's")
    p.add_argument("--remove", action="store_true", help="take out what setup added")
    p.add_argument(
        "--no-trust",
        action="store_true",
        help="codex, gemini: write no trust (of the project, of codex's hooks); say what to "
        "do instead",
    )


def run_verb(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from ..errors import EXIT_USAGE, UsageError, VerbError
    from . import apply, launcher, report
    from .model import SetupError
    from .where import Where, find_root

    if args.client is None:
        raise UsageError(f"setup needs a CLIENT, one of: {', '.join(CLIENTS)}", "CLIENT")
    for flag, value in (("--session", args.session), ("--registry-dir", args.registry_dir)):
        if value is not None:
            raise UsageError(
                f"setup takes no {flag}: the server finds the project's registry itself", flag
            )

    cwd = Path(os.getcwd())
    root, reason = find_root(cwd)
    where = Where(
        user=args.user,
        root=root,
        root_reason=reason,
        home=Path(os.path.expanduser("~")),
        environ=dict(os.environ),
        words=launcher.launcher(),
        trust=not args.no_trust,
        cwd=cwd,
    )
    plan = _planner(args.client)(where)
    try:
        changes = apply.run(plan, args.remove, lambda path: report.shown(path, where))
    except SetupError as exc:
        raise VerbError(str(exc), EXIT_USAGE, field=None) from None
    return report.emit(args, plan, changes, where)


def _planner(client: str):  # -> Callable[[Where], Plan]
    from . import claude, codex, cursor, gemini, opencode

    return {
        "claude": claude.plan,
        "codex": codex.plan,
        "gemini": gemini.plan,
        "opencode": opencode.plan,
        "cursor": cursor.plan,
    }[client]
