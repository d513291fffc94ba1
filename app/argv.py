"""The command line's words -> one checked Namespace, or a UsageError naming the flag.

Global options come before the verb (or among its options); each verb has its own
parser, so a bad option prints that verb's usage, and options may come before or
after the positionals (`send j2 --no-newline TEXT`). Words after `--` are the command
(start, exec), joined with single spaces as ssh does, or send's TEXT. Every range,
id and combination is checked (`argcheck`) before a session opens, so nothing starts
on a call that is refused.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

from .argcheck import check, not_utf8
from .errors import QUOTE_LIMIT, UsageError, capped, quote
from .verbargs import EPILOGS, VERB_ARGS

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from typing import Any, NoReturn
GLOBAL_VALUE_FLAGS = ("--registry-dir", "--session")
DESCRIPTION = "Background jobs for people who work beside coding agents."
EPILOG = "Words after -- are the command (start, exec) or the text (send)."

_NAMED = re.compile(r"(?:the following arguments are required|unrecognized arguments): ([^,\s]+)")


def terminal_columns() -> int:
    """`shutil.get_terminal_size().columns` without shutil (it imports bz2, lzma and zlib,
    and argparse asks for the width for every parser it builds, help or not)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class Formatter(argparse.HelpFormatter):
    """argparse's help layout, its width found as shutil finds it (see terminal_columns)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class EpilogFormatter(Formatter):
    """Keeps an epilog's own lines (a table of exit codes), as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "".join(indent + line for line in text.splitlines(keepends=True))


class Shortened(UsageError):
    """An option typed shorter than its name (`--timeout` for `--timeout-ms`)."""


class Parser(argparse.ArgumentParser):
    """argparse that raises a UsageError (with its own usage) instead of exiting.

    No shortened options: argparse would read `--timeout 5` as `--timeout-ms 5`, a wait
    of 5 ms meant as 5 seconds; a shortened option is refused, naming the one meant."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        text, field = _tidy(message)
        unknown = field and message.startswith("unrecognized arguments")
        if unknown and (meant := self._not_an_option(field)):
            raise Shortened(meant, field=field, usage=self.format_usage())
        raise UsageError(text, field=field, usage=self.format_usage())

    def _not_an_option(self, typed: str) -> str | None:
        """`--timeout is not an option; did you mean --timeout-ms?` for a shortened one."""
        typed = typed.split("=", 1)[0]
        if not typed.startswith("--"):
            return None
        flags = [f for a in self._actions for f in a.option_strings if f.startswith(typed)]
        if not flags:
            return None
        return capped(f"{typed} is not an option; did you mean {' or '.join(sorted(flags))}?")


def _tidy(message: str) -> tuple[str, str | None]:
    """argparse's wording -> (message naming the flag, the flag)."""
    field = None
    if match := re.match(r"argument ([^:]+): (.*)\Z", message, re.S):
        field = match.group(1).split("/")[0]
        message = f"{field}: {match.group(2)}"
    elif match := re.match(
        r"(?:the following arguments are required|unrecognized arguments): ([^,\s]+)", message
    ):
        field = match.group(1)
    return capped(message), capped(field) if field else None


def _globals(parser: argparse.ArgumentParser, default: Any) -> None:
    parser.add_argument("--registry-dir", default=default, help="the registry directory to use")
    parser.add_argument(
        "--session", default=default, help="session name (default: JOBS_TUI_SESSION or 'cli')"
    )


VERBS: dict[str, str] = {
    "start": "start COMMAND as a job; prints its id at once",
    "list": "list the project's jobs (this session's, and running ones of others)",
    "status": "one job's outcome line",
    "logs": "a job's output: a bounded tail, a page of lines, or followed",
    "send": "write TEXT (and a newline) to a job's stdin; - reads stdin",
    "kill": "stop a job's process tree; returns once it settled or the grace passed",
    "clear": "remove finished jobs of this session (one, or all)",
    "wait": "wait for jobs to end or a line to match; exits with the code (see below)",
    "restart": "kill a job if it runs, then start the same command as a new id",
    "exec": "run COMMAND; its output and exit code, or its job id if it keeps running",
    "poll": "output this session has not read yet, and the job's status",
    "up": "start the project's declared jobs (jobs-tui.toml) in order; --detach returns once "
    "each started",
    "down": "stop the project's declared jobs (or NAMEs and what depends on them), dependents "
    "first",
    "strays": "processes that escaped the jobs (orphaned, working in the project); --kill PID... "
    "kills their trees",
    "config": "the config file (init, show); the project's declared jobs (check, import FILE)",
    "schema": "JSON Schemas: the job, exec_command and process vocabularies, cli output, and "
    "jobs-tui.toml (config)",
    "mcp": "serve this project's jobs to a coding agent over MCP (stdio)",
    "serve": "serve the jobs screen to a browser (one app per tab; the URL carries a token)",
    "setup": "register jobs-tui mcp (and hooks) with claude, codex, gemini, opencode or cursor",
    "hook": "run by an agent client's hooks: this agent's finished jobs, wake at stop",
}


class _Version(argparse.Action):
    """`--version`: this install's version, looked up only when asked (metadata costs)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("jobs-tui")
        except PackageNotFoundError:
            found = "unknown (not installed)"
        sys.stdout.write(f"jobs-tui {found}\n")
        parser.exit(0)


def top_parser(verbs: bool = True) -> Parser:
    """The options before the verb; `verbs=False` leaves out the list --help shows."""
    parser = Parser(prog="jobs-tui", description=DESCRIPTION, epilog=EPILOG)
    _globals(parser, None)
    parser.add_argument("--version", action=_Version)
    parser.add_argument(
        "--demo", action="store_true", help="start a few sample jobs, then open the screen"
    )
    parser.add_argument("--json", action="store_true", help="print the call's result as JSON")
    if verbs:
        sub = parser.add_subparsers(dest="verb", metavar="VERB")
        for name, text in VERBS.items():  # listed for --help; each verb parses with its own
            sub.add_parser(name, help=text)
    return parser


def _globals_before(words: list[str]) -> argparse.Namespace:
    """The options before the verb. Parsing them needs no list of verbs (it costs a short
    call a few ms to build), unless they ask for help or are wrong: then the whole one."""
    if not words:
        return argparse.Namespace(registry_dir=None, session=None, demo=False, json=False)
    if not any(w in ("-h", "--help") for w in words):
        try:
            return top_parser(verbs=False).parse_args(words)
        except Shortened as exc:  # said with the whole usage
            raise Shortened(str(exc), exc.field, top_parser().format_usage()) from None
        except UsageError:
            pass  # said again below, with the whole usage
    return top_parser().parse_args(words)


def verb_parser(name: str) -> Parser:
    common = argparse.ArgumentParser(add_help=False, formatter_class=Formatter)
    _globals(common, argparse.SUPPRESS)
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print the result as JSON"
    )
    p = Parser(
        prog=f"jobs-tui {name}",
        description=VERBS[name],
        epilog=EPILOGS.get(name),
        parents=[common],
        formatter_class=EpilogFormatter,
    )
    VERB_ARGS[name](p)
    return p


def _verb_index(words: list[str]) -> int | None:
    """Where the verb is: the first word that is neither a global option nor its value."""
    at = 0
    while at < len(words):
        word = words[at]
        takes_value = (
            "=" not in word
            and len(word) > 2
            and any(flag.startswith(word) for flag in GLOBAL_VALUE_FLAGS)
        )
        if takes_value:
            at += 2
        elif word.startswith("-") and word != "-":
            at += 1
        else:
            return at
    return None


def wants_json(argv: list[str]) -> bool:
    """`--json` among the options (before `--`), even when the rest does not parse."""
    head = argv[: argv.index("--")] if "--" in argv else argv
    return "--json" in head


def parse(argv: list[str]) -> argparse.Namespace:
    """The checked Namespace of one call; raises UsageError (never exits, but for -h)."""
    words: list[str] | None = None
    if "--" in argv:
        cut = argv.index("--")
        argv, words = argv[:cut], argv[cut + 1 :]
    at = _verb_index(argv)
    if at is None:
        args = top_parser().parse_args(argv)
        verb = None
    else:
        verb = argv[at]
        if verb not in VERBS:
            raise UsageError(
                f"unknown verb {quote(verb)}; one of: {', '.join(VERBS)}",
                field="VERB",
                usage=top_parser().format_usage(),
            )
        args = _globals_before(argv[:at])
        parser = verb_parser(verb)
        parser.parse_intermixed_args(argv[at + 1 :], namespace=args)
    args.verb = verb
    args.json = bool(getattr(args, "json", False))
    _words_after_dash(args, words)
    check(args, _usage)
    return args


def _usage(verb: str | None) -> str:
    return (verb_parser(verb) if verb else top_parser()).format_usage()


def _words_after_dash(args: argparse.Namespace, words: list[str] | None) -> None:
    verb = args.verb
    if words is not None:
        if verb in ("start", "exec"):
            args.words = [*args.words, *words]
        elif verb == "send" and args.text is None:
            args.text = " ".join(words)
        else:
            what = f"jobs-tui {verb}" if verb else "jobs-tui"
            raise UsageError(f"{what} takes no words after --", "--", _usage(verb))
    if verb in ("start", "exec"):
        args.words = " ".join(args.words)
        if not args.words.strip():
            raise UsageError(
                f"{verb} needs a command, e.g. jobs-tui {verb} -- make test",
                "COMMAND",
                _usage(verb),
            )


__all__ = ["QUOTE_LIMIT", "VERBS", "not_utf8", "parse", "wants_json"]
