"""`jobs-tui mcp`: jobs-tui as an MCP server over stdio (issue 12).

Modules: `tooltable` (tools derived from the published schemas), `shaping` (output a model
can use), `notify` (finish messages, resource updates), `resources` (`jobs://...`),
`server` (the SDK server and the session), `handshake` (the `initialize` answer, given
before the SDK is imported), `stdio` (the transport: every line answered, a
dead stdout ends the session), `wire` (each line checked: the JSON-RPC error it gets).
This module only declares the verb's options, so parsing a command line never imports
the SDK.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`: the command line imports this module to parse
if TYPE_CHECKING:
    import argparse

VOCABULARIES = ("job", "exec_command", "process")
DEFAULT_LIMIT = 16 * 1024
MIN_LIMIT, MAX_LIMIT = 1024, 1024 * 1024


def _limit(text: str) -> int:
    import argparse

    from ..argcheck import whole

    value = whole(text)
    if not MIN_LIMIT <= value <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"{value} is outside {MIN_LIMIT}-{MAX_LIMIT}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The `mcp` verb's own options (`--session`, `--registry-dir` are global)."""
    for action in p._actions:  # the global --session means something else here
        if "--session" in action.option_strings:
            action.help = "a named, persistent session (default: mcp-<pid>, ends with the server)"
    p.add_argument(
        "--tools",
        choices=VOCABULARIES,
        default="job",
        help="the vocabulary to serve: job (job_start, ...; default), exec_command, process",
    )
    p.add_argument(
        "--channel",
        action="store_true",
        help="declare Claude Code's claude/channel capability and send each finish of this "
        "session's jobs as a channel message (launch Claude Code with "
        "--dangerously-load-development-channels server:NAME; docs/mcp.md, Learning of a finish)",
    )
    p.add_argument(
        "--max-output-bytes",
        type=_limit,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"bound of a tool's text output, head and tail kept (default {DEFAULT_LIMIT}; "
        f"{MIN_LIMIT}-{MAX_LIMIT})",
    )


def run_verb(args: argparse.Namespace) -> int:
    """Serve until stdin closes; the session's non-detached jobs die with the server.

    The client's `initialize` and a first `tools/list` are answered before the SDK and
    most of the engine are imported (`handshake`, `early`); the rest ~0.5 s later."""
    import os

    from .handshake import answer_early, tool_listing

    early = answer_early(args.channel, args.tools)
    try:
        if early.expected:  # initialize was answered: a tools/list may come at once
            early.lines.offer_tools(tool_listing(args.tools, args.channel))
        from .server import Options, run

        options = Options(
            vocabulary=args.tools,
            session=args.session,
            registry_dir=args.registry_dir,
            limit=args.max_output_bytes,
            cwd=os.getcwd(),
            channel=args.channel,
        )
        return run(options, early)
    finally:
        early.give_back()
