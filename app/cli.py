"""`jobs-tui`: the command-line entry point. Verbs import no UI module.

With no verb, `jobs-tui` opens the screen when stdout is a terminal (or with
`--demo`) and prints the job rows otherwise. Words after `--` are joined with
single spaces into the command (as ssh does). Exit codes: see README, "Command line".
"""

from __future__ import annotations

import argparse
import os
import sys

from .errors import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_PIPE,
    EXIT_REFUSED,
    EXIT_UNKNOWN,
    EXIT_USAGE,
    UsageError,
    VerbError,
    capped,
    flag_for,
    renamed,
)

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from typing import Any

    Verb = Callable[[Any, argparse.Namespace], Awaitable[int]]


def parse(argv: list[str]) -> argparse.Namespace:
    """The checked arguments of one call (see `argv`); raises UsageError."""
    from .argv import parse as parse_argv

    return parse_argv(argv)


def _verbs() -> dict[str, Verb]:
    from .verbs import execute as verbs_exec
    from .verbs import job as verbs
    from .verbs import strays
    from .verbs import wait as waiting

    return {
        "start": verbs.start,
        "list": verbs.list_jobs,
        "status": verbs.status,
        "logs": verbs.logs,
        "send": verbs.send,
        "kill": verbs.kill,
        "clear": verbs.clear,
        "wait": waiting.wait,
        "restart": verbs.restart,
        "exec": verbs_exec.exec_verb,
        "poll": verbs_exec.poll,
        "strays": strays.strays,
    }


async def _run(verb: Verb, args: argparse.Namespace) -> int:
    from .session import open_manager

    manager = await open_manager(args.session, args.registry_dir)
    try:
        return await verb(manager, args)
    finally:
        await manager.close()


def _fail(args: argparse.Namespace | None, error: VerbError, verb: str | None = None) -> int:
    """The error on stderr (after the verb's usage for a usage error), and as JSON with --json."""
    from jobs_tui.engine.records.sanitize import sanitize_line

    from . import jsonout
    from .printing import EXIT_PIPE, err, silence_stdout

    message = capped(str(error))
    as_json = args.json if args is not None else False
    if as_json:
        try:
            jsonout.emit_error(error, message, verb, getattr(args, "session", None))
        except BrokenPipeError:
            silence_stdout()
            return EXIT_PIPE
    elif error.usage:
        err(error.usage.rstrip())
    err(f"jobs-tui: {sanitize_line(message, 2000)}")  # what was typed may hold escapes
    return error.code


def _is_usage(exc: Exception) -> bool:
    """A call the engine's argument checks refused (not a failure while acting on a job)."""
    from jobs_tui.engine.records.results import InvalidArgument

    return isinstance(exc, InvalidArgument)


def main(argv: list[str] | None = None) -> int:
    """Run one call. As the process's entry point (`argv` None), a verb exits at once."""
    from .printing import setup_streams

    setup_streams()
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["hook"]:  # run by an agent on every tool call: no other verb's parser
        from .hook import main as hook_main

        code = hook_main(words[1:])
        if argv is None:
            _exit_now(code)
        return code
    try:
        args = parse(words)
    except UsageError as exc:
        code = _fail(_words_namespace(words), exc, _verb_of(words))
        if _verb_of(words) == "hook":
            code = 1  # an agent's hook: exit 2 would block its prompt, tool result or stop
    except Exception as exc:  # parsing touches the environment (the cwd): never a traceback
        code = _fail(_words_namespace(words), _unexpected(exc), _verb_of(words))
    else:
        if args.verb is None and (args.demo or sys.stdout.isatty()):
            if not sys.stdout.isatty():
                return _fail(args, UsageError("--demo needs a terminal", "--demo"))
            from jobs_tui.app.tui import run_tui  # the UI loads only when it is shown

            return run_tui(registry_dir=args.registry_dir, demo=args.demo)
        code = _verb_main(args)
    if argv is None:
        _exit_now(code)
    return code


def _words_namespace(words: list[str]) -> argparse.Namespace:
    """What an error needs of a call whose words did not parse: --json, --session."""
    from .argv import wants_json

    session = None
    for at, word in enumerate(words):
        if word == "--":
            break
        if word == "--session" and at + 1 < len(words):
            session = words[at + 1]
        elif word.startswith("--session="):
            session = word.partition("=")[2]
    return argparse.Namespace(json=wants_json(words), session=session)


def _unexpected(exc: BaseException) -> VerbError:
    """One line for what no verb foresaw (JOBS_TUI_DEBUG=1 raises it, with its traceback)."""
    try:
        os.getcwd()
    except OSError:
        return VerbError("the current directory no longer exists", EXIT_ERROR, field="--cwd")
    if os.environ.get("JOBS_TUI_DEBUG"):
        raise exc
    what = f"{type(exc).__name__}: {exc} (JOBS_TUI_DEBUG=1 shows where)"
    return VerbError(f"unexpected error: {what}", EXIT_ERROR)


def _exit_now(code: int) -> None:
    """Skip interpreter teardown (~10 ms): everything is written and closed by now."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # closed before we started: nothing of ours is buffered there
            continue
        try:
            stream.flush()
        except BrokenPipeError:
            code = code or 141
    os._exit(code)


def _verb_of(words: list[str]) -> str | None:
    from .argv import VERBS

    return next((w for w in words if w in VERBS), None)


def _verb_main(args: argparse.Namespace) -> int:
    try:
        if args.verb == "config":
            from .verbs.execute import config_verb

            return config_verb(args)
        if args.verb in ("up", "down"):
            return _stack_verb(args)
        if args.verb == "schema":
            from .verbs.execute import schema_verb

            return schema_verb(args)
        if args.verb == "mcp":
            from .mcp import run_verb

            return run_verb(args)
        if args.verb == "hook":
            from .hook import run_verb as hook_verb

            return hook_verb(args)
        if args.verb == "serve":
            from .serve.server import run_verb as serve_verb

            return serve_verb(args)
        if args.verb == "setup":
            from .setup import run_verb as setup_verb

            return setup_verb(args)
        if args.verb is None:
            args.verb, args.all = "list", False
        if args.verb == "exec" and getattr(args, "started", None) is None:
            from .verbs.execute import quick_exec

            code = quick_exec(args)  # no event loop, when the session has nothing to do
            if code is not None:
                return code
        if args.verb in ("list", "status"):
            from .verbs.reads import glance

            code = glance(args)  # no event loop, when the session has nothing to do
            if code is not None:
                return code
        asyncio = import_asyncio()
        return asyncio.run(_run(_verbs()[args.verb], args))
    except VerbError as exc:
        return _fail(args, exc, args.verb)
    except KeyboardInterrupt:
        return _fail(args, VerbError("interrupted", EXIT_INTERRUPTED), args.verb)
    except BrokenPipeError:  # stdout's reader left: end quietly, as other Unix tools do
        from .printing import silence_stdout

        silence_stdout()
        return EXIT_PIPE
    except Exception as exc:
        return _fail(args, _as_verb_error(args, exc), args.verb)


def _stack_verb(args: argparse.Namespace) -> int:
    """`up` / `down`: the file and NAMEs checked first; `up` without --detach is the screen."""
    from .verbs import stack

    refused = stack.prepare(args)
    if refused is not None:
        return refused
    if args.verb == "up" and not args.detach:
        from jobs_tui.app.tui import run_tui  # the UI loads only when it is shown

        # None is 'no up' to the screen: [] is 'the autostart jobs', as up without NAMEs
        return run_tui(registry_dir=args.registry_dir, up=args.names or [])
    verb = stack.up if args.verb == "up" else stack.down
    return import_asyncio().run(_run(verb, args))


def import_asyncio():  # -> the asyncio module
    """asyncio, without ssl if nothing imported it yet: no verb speaks TLS, and loading
    OpenSSL costs a short call about a third of an interpreter start. asyncio takes a
    missing ssl as it takes a Python built without it; a later `import ssl` works."""
    if "asyncio" in sys.modules or "ssl" in sys.modules:
        import asyncio

        return asyncio
    sys.modules["ssl"] = None  # type: ignore[assignment]  # `import ssl` raises ImportError
    try:
        import asyncio
    finally:
        del sys.modules["ssl"]
    return asyncio


def _as_verb_error(args: argparse.Namespace, exc: Exception) -> VerbError:
    """The engine's errors with their exit codes and the flag as typed; anything else is a
    bug or an environment we did not foresee: one line, no traceback."""
    from jobs_tui.engine import ConfigError, JobError, Refused, UnknownJob

    if isinstance(exc, JobError):
        code = EXIT_USAGE if _is_usage(exc) else EXIT_ERROR
        if isinstance(exc, UnknownJob):
            code = EXIT_UNKNOWN
        elif isinstance(exc, Refused):
            code = EXIT_REFUSED
        flag = flag_for(args.verb, exc.field)
        return VerbError(renamed(str(exc), exc.field, flag), code, field=flag)
    if isinstance(exc, ConfigError):
        return VerbError(str(exc), EXIT_ERROR)
    return _unexpected(exc)


if __name__ == "__main__":
    sys.exit(main())
