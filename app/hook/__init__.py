"""`jobs-tui hook EVENT --client CLIENT`: what an agent client's hooks run (issue 23 D).

The finish of a job reaches a model only through what a client puts in a model request:
a tool result, or a hook's output. So the clients' hooks run this verb:

- `prompt` (a prompt is about to go to the model) and `tool` (a tool call finished): the
  finishes of this agent's jobs not reported yet become the hook's additional context,
  one outcome line each, each reported once (then marked `seen` in the registry).
- `stop` (the agent is about to end its turn): while a job it started with `wake` runs,
  hold (at most `--limit` seconds) until it ends, then answer "block" with its finish as
  the reason, so the agent takes one more turn.

Modules: `shapes` (each client's input and output JSON: pure), `proctree` (a process's
ancestors, from /proc), `identity` (which MCP server is this agent's: pure),
`registration` (what `jobs-tui mcp` records so a hook can find it), `reports` (the
session's registry file: unreported finishes, marking them seen), `run` (the verb).

A hook never breaks its agent: bad input, a missing server, an unreadable registry are
said on stderr and the hook exits 0 with no effect; a bad command line exits 1 (a
non-blocking error in every client), never 2 (a blocking one).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`: this runs on every tool call of an agent
if TYPE_CHECKING:
    import argparse

EVENTS = ("prompt", "tool", "stop")
CLIENTS = ("claude", "codex", "gemini")
DEFAULT_LIMIT_S = 600
MAX_LIMIT_S = 24 * 3600
EXIT_USAGE = 1  # not 2: exit 2 blocks the prompt, the tool result or the stop in the clients


def _limit(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_LIMIT_S:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"{text} is outside 0-{MAX_LIMIT_S} seconds")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verb's own words (also used by `jobs-tui --help`'s verb list)."""
    p.add_argument(
        "event",
        choices=EVENTS,
        metavar="EVENT",
        help="prompt (a prompt goes to the model), tool (a tool call ended), stop (the agent "
        "is about to stop)",
    )
    p.add_argument(
        "--client",
        required=True,
        choices=CLIENTS,
        help="whose hook this is: claude, codex or gemini (their input and output differ)",
    )
    p.add_argument(
        "--limit",
        type=_limit,
        default=float(DEFAULT_LIMIT_S),
        metavar="SECONDS",
        help=f"stop: hold at most this long for a wake job (default {DEFAULT_LIMIT_S})",
    )


def parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog="jobs-tui hook",
        description="Run by an agent client's hooks: report this agent's finished jobs "
        "into the model's context; at stop, wait for its wake jobs. Reads the hook's "
        "input JSON on stdin, writes the client's answer on stdout.",
        epilog="Exit status: 0 (also when the hook cannot work: it says why on stderr); "
        "1 for a bad command line. Never 2, which the clients read as a block.",
    )
    add_arguments(p)
    return p


def quick_parse(words: list[str]) -> tuple[str, str, float] | None:
    """(event, client, limit) of the words a hook command has, without building a parser
    (argparse's costs every tool call a few ms); None for anything else (help, errors)."""
    if not words or words[0] not in EVENTS:
        return None
    client, limit, at = None, float(DEFAULT_LIMIT_S), 1
    while at < len(words):
        name, eq, value = words[at].partition("=")
        if not eq:
            if at + 1 >= len(words):
                return None
            value = words[at + 1]
            at += 1
        at += 1
        if name == "--client" and value in CLIENTS:
            client = value
        elif name == "--limit":
            try:
                limit = float(value)
            except ValueError:
                return None
            if not 0 < limit <= MAX_LIMIT_S:
                return None
        else:
            return None
    return None if client is None else (words[0], client, limit)


def main(words: list[str]) -> int:
    """`jobs-tui hook ...`: parse the words here (no other verb's parser is built)."""
    quick = quick_parse(words)
    if quick is None:
        try:
            args = parser().parse_args(words)
        except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
            return 0 if exc.code == 0 else EXIT_USAGE
        quick = (args.event, args.client, args.limit)
    from .run import run

    return run(*quick)


def run_verb(args: argparse.Namespace) -> int:
    from .run import run

    return run(args.event, args.client, args.limit)
