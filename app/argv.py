"""The command line's words -> one checked Namespace, or a UsageError naming the flag.

Global options come before the verb (or among its options); each verb has its own
parser, so a bad option prints that verb's usage, and options may come before or
after the positionals (`send j2 --no-newline TEXT`). Words after `--` are the command
(start, exec), joined with single spaces as ssh does, or send's TEXT. Every range is
checked here, before a session opens, so nothing starts on a call that is refused.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from jobs_tui.engine.callschema import (
    MAX_COLS,
    MAX_LINES,
    MAX_ROWS,
    MAX_START_TIMEOUT_MS,
    MAX_WAIT_MS,
    MIN_COLS,
    MIN_ROWS,
)
from jobs_tui.engine.protocol import KILL_SIGNALS as SIGNALS

from .errors import QUOTE_LIMIT, UsageError, capped, quote

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from typing import Any, NoReturn
GLOBAL_VALUE_FLAGS = ("--registry-dir", "--session")
DESCRIPTION = "Background jobs for people who work beside coding agents."
EPILOG = "Words after -- are the command (start, exec) or the text (send)."

# (verb, dest) -> (flag, lowest, highest); see README, "Command line".
RANGES: dict[tuple[str, str], tuple[str, int, int]] = {
    ("start", "timeout_ms"): ("--timeout-ms", 1, MAX_START_TIMEOUT_MS),
    ("exec", "timeout_ms"): ("--timeout-ms", 1, MAX_START_TIMEOUT_MS),
    ("exec", "yield_ms"): ("--yield-ms", 250, 30_000),
    ("wait", "timeout_ms"): ("--timeout-ms", 0, MAX_WAIT_MS),
    ("poll", "wait_ms"): ("--wait-ms", 0, MAX_WAIT_MS),
    ("logs", "lines"): ("--lines", 1, MAX_LINES),
    ("logs", "offset"): ("--offset", 0, 10**12),
    ("logs", "limit"): ("--limit", 1, 1_000_000),
    ("start", "cols"): ("--cols", MIN_COLS, MAX_COLS),
    ("start", "rows"): ("--rows", MIN_ROWS, MAX_ROWS),
}
_WHOLE = re.compile(r"[+-]?\d{1,18}\Z")
_JOB_ID = re.compile(r"j[1-9]\d{0,8}\Z")
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


class Parser(argparse.ArgumentParser):
    """argparse that raises a UsageError (with its own usage) instead of exiting."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        text, field = _tidy(message)
        raise UsageError(text, field=field, usage=self.format_usage())


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


def whole(text: str) -> int:
    """A whole number of at most 18 digits (never a 4,300-digit conversion)."""
    if not _WHOLE.match(text.strip()):
        what = "is out of range" if text.strip().lstrip("+-").isdigit() else "is not a whole number"
        raise argparse.ArgumentTypeError(f"{quote(text)} {what}")
    return int(text)


def signal_name(text: str) -> str:
    name = text.upper()
    name = name if name.startswith("SIG") else "SIG" + name
    if name not in SIGNALS:
        raise argparse.ArgumentTypeError(f"{quote(text)} is not one of {', '.join(SIGNALS)}")
    return name


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
    "wait": "wait for a job; exits with its code (128+N after signal N), 124 on timeout",
    "exec": "run COMMAND; its output and exit code, or its job id if it keeps running",
    "poll": "output this session has not read yet, and the job's status",
    "config": "write the default config file, or show the effective one",
    "schema": "JSON Schemas: the job, exec_command and process vocabularies, and cli output",
    "mcp": "serve this project's jobs to a coding agent over MCP (stdio)",
}


def top_parser(verbs: bool = True) -> Parser:
    """The options before the verb; `verbs=False` leaves out the list --help shows."""
    parser = Parser(prog="jobs-tui", description=DESCRIPTION, epilog=EPILOG)
    _globals(parser, None)
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
    if not any(w in ("-h", "--help") or w.startswith("--h") for w in words):
        try:
            return top_parser(verbs=False).parse_args(words)
        except UsageError:
            pass  # said again below, with the whole usage
    return top_parser().parse_args(words)


def verb_parser(name: str) -> Parser:
    common = argparse.ArgumentParser(add_help=False, formatter_class=Formatter)
    _globals(common, argparse.SUPPRESS)
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print the result as JSON"
    )
    p = Parser(prog=f"jobs-tui {name}", description=VERBS[name], parents=[common])
    _VERB_ARGS[name](p)
    return p


def _start(p: argparse.ArgumentParser) -> None:
    p.add_argument("--label", help="short display label (default: the command)")
    p.add_argument("--timeout-ms", type=whole, help="kill the job after this many ms")
    p.add_argument("--stdin", action="store_true", help="give the job a stdin pipe for send")
    p.add_argument("--tty", action="store_true", help="run it on a pseudo-terminal")
    p.add_argument("--cols", type=whole, help="terminal columns (with --tty; default 80)")
    p.add_argument("--rows", type=whole, help="terminal rows (with --tty; default 24)")
    p.add_argument("--detached", action="store_true", help="keep it running after the session")
    p.add_argument("--cwd", help="working directory")
    p.add_argument("--wake", action="store_true", help="report its finish proactively")
    p.add_argument("words", nargs="*", metavar="COMMAND")


def _list(p: argparse.ArgumentParser) -> None:
    p.add_argument("--all", action="store_true", help="include other sessions' finished jobs")


def _id(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="ID")


def _logs(p: argparse.ArgumentParser) -> None:
    _id(p)
    p.add_argument("--lines", type=whole, help="last N lines (1-2000)")
    p.add_argument("--offset", type=whole, help="first line of a page (0-based)")
    p.add_argument("--limit", type=whole, help="lines in a page (1-1000000)")
    p.add_argument("--follow", "-f", action="store_true", help="keep printing until it ends")


def _send(p: argparse.ArgumentParser) -> None:
    _id(p)
    p.add_argument("text", nargs="?", metavar="TEXT")
    p.add_argument("--no-newline", action="store_true", help="do not append a newline")
    p.add_argument("--eof", action="store_true", help="close the job's stdin afterwards")


def _kill(p: argparse.ArgumentParser) -> None:
    _id(p)
    p.add_argument(
        "--signal", "-s", type=signal_name, default="SIGTERM", help="SIGTERM|SIGKILL|SIGINT"
    )


def _clear(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", nargs="?", metavar="ID")
    p.add_argument("--all", action="store_true", help="also kill and remove running jobs")


def _wait(p: argparse.ArgumentParser) -> None:
    _id(p)
    p.add_argument("--timeout-ms", type=whole, help="how long to wait (default 30000, max 600000)")


def _exec(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yield-ms", type=whole, help="wait up to this long (250-30000, default 10000)")
    p.add_argument("--tty", action="store_true", help="run it on a pseudo-terminal")
    p.add_argument("--timeout-ms", type=whole, help="kill it after this many ms (default 30 min)")
    p.add_argument("--cwd", help="working directory")
    p.add_argument("words", nargs="*", metavar="COMMAND")


def _poll(p: argparse.ArgumentParser) -> None:
    _id(p)
    p.add_argument("--wait-ms", type=whole, help="wait up to this long for it to end (0-600000)")


def _config(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("init", "show"), metavar="ACTION", help="init or show")
    p.add_argument("--path", help="the config file (default: JOBS_TUI_CONFIG or platform dir)")
    p.add_argument("--force", action="store_true", help="init: overwrite an existing file")


def _schema(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", metavar="NAME", help="a family (job, cli, …) or one tool")


def _mcp(p: argparse.ArgumentParser) -> None:
    from .mcp import add_arguments

    add_arguments(p)


_VERB_ARGS = {
    "start": _start,
    "list": _list,
    "status": _id,
    "logs": _logs,
    "send": _send,
    "kill": _kill,
    "clear": _clear,
    "wait": _wait,
    "exec": _exec,
    "poll": _poll,
    "config": _config,
    "schema": _schema,
    "mcp": _mcp,
}


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
    check(args)
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


def not_utf8(text: str) -> str | None:
    """Why `text` (decoded from argv with surrogateescape) is not UTF-8, or None."""
    for at, ch in enumerate(text):
        if "\udc80" <= ch <= "\udcff":
            return f"is not valid UTF-8 (byte 0x{ord(ch) - 0xDC00:02x} at character {at + 1})"
        if "\ud800" <= ch <= "\udfff":
            return f"is not valid UTF-8 (a lone surrogate at character {at + 1})"
    return None


def _check_text(args: argparse.Namespace) -> None:
    """What the registry keeps as JSON text must be text: refused, naming the flag.

    (send's TEXT is not checked: it goes to the job as the bytes typed.)"""
    verb = args.verb
    fields: list[tuple[str, str | None]] = [
        ("--session", args.session),
        ("JOBS_TUI_SESSION", None if args.session else os.environ.get("JOBS_TUI_SESSION")),
        ("--registry-dir", args.registry_dir),
        ("JOBS_TUI_REGISTRY_DIR", os.environ.get("JOBS_TUI_REGISTRY_DIR")),
    ]
    if verb in ("start", "exec"):
        fields += [("--label", getattr(args, "label", None)), ("COMMAND", args.words)]
        fields.append(("--cwd", args.cwd))
    for flag, value in fields:
        why = not_utf8(value) if value else None
        if why:
            raise UsageError(f"{flag} {why}; jobs-tui records it as text", flag, _usage(verb))
    if verb in ("start", "exec") and args.cwd is None:
        here = os.getcwd()
        if not_utf8(here):
            message = f"the current directory {quote(here)} {not_utf8(here)}; pass --cwd"
            raise UsageError(message, "--cwd", _usage(verb))


def check(args: argparse.Namespace) -> None:
    """Ranges, combinations, ids and text: refused here, before a session opens."""
    verb = args.verb
    _check_text(args)
    for (name, dest), (flag, low, high) in RANGES.items():
        value = getattr(args, dest, None) if name == verb else None
        if value is not None and not low <= value <= high:
            raise UsageError(f"{flag} {value} is outside {low}-{high}", flag, _usage(verb))
    if verb == "start" and not args.tty:
        for flag, value in (("--cols", args.cols), ("--rows", args.rows)):
            if value is not None:
                raise UsageError(f"{flag} needs --tty (a terminal size)", flag, _usage(verb))
    if verb == "start":
        args.cols = 80 if args.cols is None else args.cols
        args.rows = 24 if args.rows is None else args.rows
    if verb == "logs" and args.lines is not None and (args.offset, args.limit) != (None, None):
        message = "--lines cannot be combined with --offset/--limit"
        raise UsageError(message, "--lines", _usage(verb))
    if verb in ("start", "exec") and args.cwd is not None:
        path = os.path.expanduser(args.cwd)
        if not args.cwd or not os.path.isdir(path):
            raise UsageError(f"--cwd {quote(args.cwd)} is not an existing directory", "--cwd")
    job_id = getattr(args, "id", None)
    number = verb == "poll" and job_id is not None and re.fullmatch(r"[1-9]\d{0,8}", job_id)
    if job_id is not None and not _JOB_ID.match(job_id) and not number:
        raise UsageError(f"ID {quote(job_id)} is not a job id like j1", "ID", _usage(verb))


__all__ = ["QUOTE_LIMIT", "VERBS", "parse", "wants_json"]
