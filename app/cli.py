"""`jobs-tui`: the command-line entry point. Verbs import no UI module.

With no verb, `jobs-tui` opens the screen when stdout is a terminal (or with
`--demo`) and prints the job rows otherwise. Words after `--` are joined with
single spaces into the command (as ssh does). Exit codes: see README, "Command line".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

SIGNALS = ("SIGTERM", "SIGKILL", "SIGINT")


def _signal(text: str) -> str:
    name = text.upper()
    name = name if name.startswith("SIG") else "SIG" + name
    if name not in SIGNALS:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(SIGNALS)}")
    return name


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jobs-tui",
        description="Background jobs for people who work beside coding agents.",
        epilog="Words after -- are the command (start, exec) or the text (send).",
    )
    _globals(parser, None)
    parser.add_argument(
        "--demo", action="store_true", help="start a few sample jobs, then open the screen"
    )
    parser.add_argument("--json", action="store_true", help="print the JobDetails of the call")
    common = argparse.ArgumentParser(add_help=False)
    _globals(common, argparse.SUPPRESS)
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print JobDetails"
    )
    sub = parser.add_subparsers(dest="verb", metavar="VERB")

    def verb(name: str, text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=text, description=text, parents=[common])

    p = verb("start", "start COMMAND as a job; prints its id at once")
    p.add_argument("--label", help="short display label (default: the command)")
    p.add_argument("--timeout-ms", type=int, help="kill the job after this many ms")
    p.add_argument("--stdin", action="store_true", help="give the job a stdin pipe for send")
    p.add_argument("--tty", action="store_true", help="run it on a pseudo-terminal")
    p.add_argument("--cols", type=int, default=80, help="terminal columns (with --tty)")
    p.add_argument("--rows", type=int, default=24, help="terminal rows (with --tty)")
    p.add_argument("--detached", action="store_true", help="keep it running after the session")
    p.add_argument("--cwd", help="working directory")
    p.add_argument("--wake", action="store_true", help="report its finish proactively")
    p.add_argument("words", nargs="*", metavar="COMMAND")
    p = verb("list", "list the project's jobs (this session's, and running ones of others)")
    p.add_argument("--all", action="store_true", help="include other sessions' finished jobs")
    verb("status", "one job's outcome line").add_argument("id", metavar="ID")
    p = verb("logs", "a job's output: a bounded tail, a page of lines, or followed")
    p.add_argument("id", metavar="ID")
    p.add_argument("--lines", type=int, help="last N lines (1-2000)")
    p.add_argument("--offset", type=int, help="first line of a page (0-based)")
    p.add_argument("--limit", type=int, help="lines in a page")
    p.add_argument("--follow", "-f", action="store_true", help="keep printing until it ends")
    p = verb("send", "write TEXT (and a newline) to a job's stdin; - reads stdin")
    p.add_argument("id", metavar="ID")
    p.add_argument("text", nargs="?", metavar="TEXT")
    p.add_argument("--no-newline", action="store_true", help="do not append a newline")
    p.add_argument("--eof", action="store_true", help="close the job's stdin afterwards")
    p = verb("kill", "stop a job's process tree; returns once it settled or the grace passed")
    p.add_argument("id", metavar="ID")
    p.add_argument("--signal", "-s", type=_signal, default="SIGTERM", help="SIGTERM|SIGKILL|SIGINT")
    p = verb("clear", "remove finished jobs of this session (one, or all)")
    p.add_argument("id", nargs="?", metavar="ID")
    p.add_argument("--all", action="store_true", help="also kill and remove running jobs")
    p = verb("wait", "wait for a job; exits with its code (128+N after signal N), 124 on timeout")
    p.add_argument("id", metavar="ID")
    p.add_argument("--timeout-ms", type=int, help="how long to wait (default 30000, max 600000)")
    p = verb("exec", "run COMMAND; its output and exit code, or its job id if it keeps running")
    p.add_argument("--yield-ms", type=int, help="wait up to this long (250-30000, default 10000)")
    p.add_argument("--tty", action="store_true", help="run it on a pseudo-terminal")
    p.add_argument("--timeout-ms", type=int, help="kill it after this many ms (default 30 min)")
    p.add_argument("--cwd", help="working directory")
    p.add_argument("words", nargs="*", metavar="COMMAND")
    p = verb("poll", "output this session has not read yet, and the job's status")
    p.add_argument("id", metavar="ID")
    p.add_argument("--wait-ms", type=int, help="wait up to this long for it to end (min 5000)")
    p = verb("config", "write the default config file, or show the effective one")
    p.add_argument("action", choices=("init", "show"))
    p.add_argument("--path", help="the config file (default: JOBS_TUI_CONFIG or platform dir)")
    p.add_argument("--force", action="store_true", help="init: overwrite an existing file")
    p = verb("schema", "the JSON Schemas of the job, exec_command and process vocabularies")
    p.add_argument("name", nargs="?", help="one family or tool (job, exec_command, write_stdin…)")
    return parser


def _globals(parser: argparse.ArgumentParser, default: Any) -> None:
    parser.add_argument("--registry-dir", default=default, help="the registry directory to use")
    parser.add_argument(
        "--session", default=default, help="session name (default: JOBS_TUI_SESSION or 'cli')"
    )


def parse(argv: list[str]) -> argparse.Namespace:
    """argparse on what precedes `--`; what follows is the command (or send's text)."""
    words: list[str] | None = None
    if "--" in argv:
        cut = argv.index("--")
        argv, words = argv[:cut], argv[cut + 1 :]
    parser = _parser()
    args = parser.parse_args(argv)
    args.json = getattr(args, "json", False)
    if words is not None:
        if args.verb in ("start", "exec"):
            args.words = [*args.words, *words]
        elif args.verb == "send" and args.text is None:
            args.text = " ".join(words)
        else:
            parser.error(f"{args.verb or 'jobs-tui'} takes no words after --")
    if args.verb in ("start", "exec"):
        args.words = " ".join(args.words)
        if not args.words.strip():
            parser.error(f"{args.verb} needs a command, e.g. jobs-tui {args.verb} -- make test")
    return args


Verb = Callable[[Any, argparse.Namespace], Awaitable[int]]


def _verbs() -> dict[str, Verb]:
    from . import verbs, verbs_exec

    return {
        "start": verbs.start,
        "list": verbs.list_jobs,
        "status": verbs.status,
        "logs": verbs.logs,
        "send": verbs.send,
        "kill": verbs.kill,
        "clear": verbs.clear,
        "wait": verbs.wait,
        "exec": verbs_exec.exec_verb,
        "poll": verbs_exec.poll,
    }


async def _run(verb: Verb, args: argparse.Namespace) -> int:
    from .session import cli_manager

    manager = cli_manager(args.session, args.registry_dir)
    await manager.open()
    try:
        return await verb(manager, args)
    finally:
        await manager.close()


def _fail(args: argparse.Namespace, message: str, code: int, details: Any = None) -> int:
    if getattr(args, "json", False):
        out = dict(details) if isinstance(details, dict) else {"action": args.verb}
        out.setdefault("error", message)
        print(json.dumps(out, ensure_ascii=False))
    print(f"jobs-tui: {message}", file=sys.stderr)
    return code


def _is_usage(exc: Exception) -> bool:
    """A call the engine's validation refused (not a failure while acting on a job)."""
    from jobs_tui.engine.calls import CallError

    return isinstance(exc.__cause__, CallError) or getattr(exc, "field", None) in ("cols", "rows")


def main(argv: list[str] | None = None) -> int:
    """Run one call. As the process's entry point (`argv` None), a verb exits at once."""
    from .printing import setup_streams

    setup_streams()
    args = parse(list(sys.argv[1:] if argv is None else argv))
    if args.verb is None and (args.demo or sys.stdout.isatty()):
        if not sys.stdout.isatty():
            print("jobs-tui: --demo needs a terminal", file=sys.stderr)
            return 2
        from jobs_tui.app.tui import run_tui  # the UI loads only when it is shown

        return run_tui(registry_dir=args.registry_dir, demo=args.demo)
    code = _verb_main(args)
    if argv is None:
        _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """Skip interpreter teardown (~10 ms): everything is written and closed by now."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = code or 141
    os._exit(code)


def _verb_main(args: argparse.Namespace) -> int:
    from jobs_tui.engine import ConfigError, JobError, Refused, UnknownJob

    from .verbs import EXIT_ERROR, EXIT_REFUSED, EXIT_UNKNOWN, EXIT_USAGE, VerbError

    try:
        if args.verb == "config":
            from .verbs_exec import config_verb

            return config_verb(args)
        if args.verb == "schema":
            from .verbs_exec import schema_verb

            return schema_verb(args)
        if args.verb is None:
            args.verb, args.all = "list", False
        return asyncio.run(_run(_verbs()[args.verb], args))
    except VerbError as exc:
        return _fail(args, str(exc), exc.code, exc.details)
    except UnknownJob as exc:
        return _fail(args, str(exc), EXIT_UNKNOWN)
    except Refused as exc:
        return _fail(args, str(exc), EXIT_REFUSED)
    except JobError as exc:
        return _fail(args, str(exc), EXIT_USAGE if _is_usage(exc) else EXIT_ERROR)
    except ConfigError as exc:
        return _fail(args, str(exc), EXIT_ERROR)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # stdout's reader left: end quietly, as other Unix tools do
        from .printing import EXIT_PIPE, silence_stdout

        silence_stdout()
        return EXIT_PIPE


if __name__ == "__main__":
    sys.exit(main())
