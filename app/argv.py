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

from jobs_tui.engine.shim.protocol import KILL_SIGNALS as SIGNALS

from .argcheck import check, not_utf8, whole
from .errors import QUOTE_LIMIT, UsageError, capped, quote

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


EPILOGS = {
    "wait": (
        "exit status:\n"
        "  0     a line matched --until (the line is printed on stdout), or the job's\n"
        "        process tree listens on --port (the job keeps running)\n"
        "        --ready: every declared job's probe passed\n"
        "  1     --ready: a job was not ready within its limit, or ended without being ready\n"
        "  124   --timeout-ms passed first (the jobs keep running)\n"
        "  N     one ID: the job's own code (128+N after signal N; 125 if not recorded)\n"
        "        --any: the code of the first job to end\n"
        "        several IDs: 0 if every job succeeded, else the first failing code in\n"
        "        the order given\n"
        "  2, 3  a bad argument (a bad --until names it), an unknown ID or name\n"
        "\n"
        "So `jobs-tui wait j3 --timeout-ms 600000` run as a background shell command (Claude\n"
        "Code's run_in_background) ends with the job's own code, and its harness reports it."
    ),
    "up": (
        "exit status (--detach):\n"
        "  0     every job started (or was running already)\n"
        "  1     some job did not start (each is named, with why)\n"
        "  2     the file is not valid, or a NAME is not declared (nothing started)\n"
        "\n"
        "Without --detach the screen opens and brings them up there."
    ),
}


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
    "wait": "wait for jobs to end or a line to match; exits with the code (see below)",
    "restart": "kill a job if it runs, then start the same command as a new id",
    "exec": "run COMMAND; its output and exit code, or its job id if it keeps running",
    "poll": "output this session has not read yet, and the job's status",
    "up": "start the project's declared jobs (jobs-tui.toml) in order; --detach returns once "
    "each started",
    "down": "stop the project's declared jobs (or NAMEs and what depends on them), dependents "
    "first",
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
    _env(p)
    p.add_argument("words", nargs="*", metavar="COMMAND")


def _env(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--env",
        action="append",
        metavar="K=V",
        help="set K in the job's environment (repeatable); --env K passes this shell's K",
    )


def _list(p: argparse.ArgumentParser) -> None:
    p.add_argument("--all", action="store_true", help="include other sessions' finished jobs")
    p.add_argument("--running", action="store_true", help="only running jobs")
    p.add_argument("--mine", action="store_true", help="only this session's jobs")
    p.add_argument("--label", metavar="GLOB", help="only jobs whose label matches (fnmatch: *, ?)")


def _id(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="ID")


def _logs(p: argparse.ArgumentParser) -> None:
    _id(p)
    p.add_argument("--lines", type=whole, help="last N lines (1-2000)")
    p.add_argument("--offset", type=whole, help="first line of a page (0-based)")
    p.add_argument("--limit", type=whole, help="lines in a page (1-1000000)")
    p.add_argument(
        "--follow",
        "-f",
        action="store_true",
        help="keep printing until it ends; output rotated away unread is said on stderr",
    )
    p.add_argument("--since", metavar="WHEN", help="only lines written since: 5m, 90s, 2h, a time")
    p.add_argument("--timestamps", action="store_true", help="the time each line was written")
    p.add_argument("--grep", metavar="REGEX", help="only lines matching (the whole retained log)")
    p.add_argument(
        "--raw",
        action="store_true",
        help="the bytes as written, escapes and all (a terminal job's text is what its "
        "terminal shows)",
    )
    p.add_argument(
        "--context", type=whole, metavar="N", help="with --grep: N lines around each match (0-20)"
    )


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
    p.add_argument("ids", nargs="+", metavar="ID")
    p.add_argument("--any", action="store_true", help="return when the first job ends")
    p.add_argument("--until", metavar="REGEX", help="return when a line of output matches")
    p.add_argument(
        "--from-start", action="store_true", help="with --until: search the output from its start"
    )
    p.add_argument(
        "--port",
        type=whole,
        metavar="N",
        help="return when a job's process tree listens on this TCP port (1-65535)",
    )
    p.add_argument(
        "--ready", action="store_true", help="return when the declared jobs' probes pass"
    )
    p.add_argument("--timeout-ms", type=whole, help="how long to wait (default 30000, max 600000)")


def _exec(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yield-ms", type=whole, help="wait up to this long (250-30000, default 10000)")
    p.add_argument("--tty", action="store_true", help="run it on a pseudo-terminal")
    p.add_argument("--timeout-ms", type=whole, help="kill it after this many ms (default 30 min)")
    p.add_argument("--cwd", help="working directory")
    _env(p)
    p.add_argument("words", nargs="*", metavar="COMMAND")


def _poll(p: argparse.ArgumentParser) -> None:
    _id(p)
    p.add_argument("--wait-ms", type=whole, help="wait up to this long for it to end (0-600000)")


def _config(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "action",
        choices=("init", "show", "check", "import"),
        metavar="ACTION",
        help="init or show the config file; check the project's jobs-tui.toml (its plan), "
        "or import FILE as one",
    )
    p.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="check, import: a jobs-tui.toml, process-compose.yaml, mprocs.yaml or Procfile "
        "(check's default: the one at the project root)",
    )
    p.add_argument(
        "--path", help="init, show: the config file (default: JOBS_TUI_CONFIG or platform dir)"
    )
    p.add_argument("--force", action="store_true", help="init, import: overwrite an existing file")


def _schema(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "name", nargs="?", metavar="NAME", help="a family (job, cli, config, …) or one tool"
    )


def _mcp(p: argparse.ArgumentParser) -> None:
    from .mcp import add_arguments

    add_arguments(p)


def _hook(p: argparse.ArgumentParser) -> None:
    from .hook import add_arguments

    add_arguments(p)


def _serve(p: argparse.ArgumentParser) -> None:
    from .serve.server import add_arguments

    add_arguments(p)


def _setup(p: argparse.ArgumentParser) -> None:
    from .setup import add_arguments

    add_arguments(p)


def _up(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="*", metavar="NAME", help="these jobs and what they need")
    p.add_argument(
        "--detach", action="store_true", help="return once every job started; open no screen"
    )


def _down(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="*", metavar="NAME", help="these jobs and their dependents")


_VERB_ARGS = {
    "start": _start,
    "list": _list,
    "status": _id,
    "logs": _logs,
    "send": _send,
    "kill": _kill,
    "clear": _clear,
    "wait": _wait,
    "restart": _id,
    "exec": _exec,
    "poll": _poll,
    "up": _up,
    "down": _down,
    "config": _config,
    "schema": _schema,
    "mcp": _mcp,
    "serve": _serve,
    "setup": _setup,
    "hook": _hook,
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
