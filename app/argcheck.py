"""What a parsed call must also be before a session opens: ranges, ids, text, combinations.

Each refusal is a UsageError naming the flag as typed (with the verb's usage, which
`argv` builds and passes in as `usage`), so nothing starts on a call that is refused.
`--env` words become the environment dict here, and `--since` epoch ms.
"""

from __future__ import annotations

import argparse
import os
import re
import time

from jobs_tui.engine.calls.callschema import (
    MAX_COLS,
    MAX_CONTEXT,
    MAX_LINES,
    MAX_PORT,
    MAX_ROWS,
    MAX_START_TIMEOUT_MS,
    MAX_WAIT_MS,
    MIN_COLS,
    MIN_ROWS,
)

from .errors import UsageError, quote

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from collections.abc import Callable

    Usage = Callable[[str | None], str]

# (verb, dest) -> (flag, lowest, highest); see README, "Command line".
RANGES: dict[tuple[str, str], tuple[str, int, int]] = {
    ("start", "timeout_ms"): ("--timeout-ms", 1, MAX_START_TIMEOUT_MS),
    ("exec", "timeout_ms"): ("--timeout-ms", 1, MAX_START_TIMEOUT_MS),
    ("exec", "yield_ms"): ("--yield-ms", 250, 30_000),
    ("wait", "timeout_ms"): ("--timeout-ms", 0, MAX_WAIT_MS),
    ("wait", "port"): ("--port", 1, MAX_PORT),
    ("poll", "wait_ms"): ("--wait-ms", 0, MAX_WAIT_MS),
    ("logs", "lines"): ("--lines", 1, MAX_LINES),
    ("logs", "offset"): ("--offset", 0, 10**12),
    ("logs", "limit"): ("--limit", 1, 1_000_000),
    ("start", "cols"): ("--cols", MIN_COLS, MAX_COLS),
    ("start", "rows"): ("--rows", MIN_ROWS, MAX_ROWS),
}
_WHOLE = re.compile(r"[+-]?\d{1,18}\Z")
_JOB_ID = re.compile(r"j[1-9]\d{0,8}\Z")
# A declared job's name names its current job wherever an id is taken (callschema.ID).
_NAME = re.compile(r"(?!j?\d+\Z)[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")


def whole(text: str) -> int:
    """A whole number of at most 18 digits (never a 4,300-digit conversion)."""
    if not _WHOLE.match(text.strip()):
        what = "is out of range" if text.strip().lstrip("+-").isdigit() else "is not a whole number"
        raise argparse.ArgumentTypeError(f"{quote(text)} {what}")
    return int(text)


def not_utf8(text: str) -> str | None:
    """Why `text` (decoded from argv with surrogateescape) is not UTF-8, or None."""
    for at, ch in enumerate(text):
        if "\udc80" <= ch <= "\udcff":
            return f"is not valid UTF-8 (byte 0x{ord(ch) - 0xDC00:02x} at character {at + 1})"
        if "\ud800" <= ch <= "\udfff":
            return f"is not valid UTF-8 (a lone surrogate at character {at + 1})"
    return None


def _check_text(args: argparse.Namespace, usage: Usage) -> None:
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
            raise UsageError(f"{flag} {why}; jobs-tui records it as text", flag, usage(verb))
    if verb in ("start", "exec") and args.cwd is None:
        here = os.getcwd()
        if not_utf8(here):
            message = f"the current directory {quote(here)} {not_utf8(here)}; pass --cwd"
            raise UsageError(message, "--cwd", usage(verb))


def check(args: argparse.Namespace, usage: Usage) -> None:
    """Ranges, combinations, ids and text: refused here, before a session opens."""
    verb = args.verb
    _check_text(args, usage)
    for (name, dest), (flag, low, high) in RANGES.items():
        value = getattr(args, dest, None) if name == verb else None
        if value is not None and not low <= value <= high:
            raise UsageError(f"{flag} {value} is outside {low}-{high}", flag, usage(verb))
    if verb == "start" and not args.tty:
        for flag, value in (("--cols", args.cols), ("--rows", args.rows)):
            if value is not None:
                raise UsageError(f"{flag} needs --tty (a terminal size)", flag, usage(verb))
    if verb == "start":
        args.cols = 80 if args.cols is None else args.cols
        args.rows = 24 if args.rows is None else args.rows
    if verb == "logs" and args.lines is not None and (args.offset, args.limit) != (None, None):
        message = "--lines cannot be combined with --offset/--limit"
        raise UsageError(message, "--lines", usage(verb))
    if verb in ("start", "exec") and args.cwd is not None:
        path = os.path.expanduser(args.cwd)
        if not args.cwd or not os.path.isdir(path):
            raise UsageError(f"--cwd {quote(args.cwd)} is not an existing directory", "--cwd")
    if verb == "wait":
        args.id = args.ids[0]
    for job_id in getattr(args, "ids", None) or [getattr(args, "id", None)]:
        number = verb == "poll" and job_id is not None and re.fullmatch(r"[1-9]\d{0,8}", job_id)
        is_name = job_id is not None and _NAME.match(job_id)
        if job_id is not None and not _JOB_ID.match(job_id) and not number and not is_name:
            message = f"ID {quote(job_id)} is not a job id like j1 or a declared job's name"
            raise UsageError(message, "ID", usage(verb))
    for name in getattr(args, "names", None) or ():
        if not _NAME.match(name):
            message = f"NAME {quote(name)} is not a declared job's name"
            raise UsageError(message, "NAME", usage(verb))
    if verb in ("start", "exec"):
        args.env = env_of(args.env)
    _check_combinations(args, usage)


def env_of(words: list[str] | None) -> dict[str, str] | None:
    """`--env K=V` (repeatable; the last K wins) and `--env K` (this shell's K) -> a dict.

    A bad form is refused naming --env; the engine checks the rest (`check_env`)."""
    if not words:
        return None
    env: dict[str, str] = {}
    for word in words:
        name, equals, value = word.partition("=")
        if not equals:
            if name not in os.environ:
                raise UsageError(
                    f"--env {quote(word)} is neither NAME=VALUE nor the name of a variable "
                    "set in this environment",
                    "--env",
                )
            value = os.environ[name]
        if not _ENV_NAME.match(name):
            raise UsageError(
                f"--env {quote(word)}: {quote(name)} is not a variable name "
                "(letters, digits, _; not starting with a digit)",
                "--env",
            )
        why = not_utf8(value)
        if why:
            raise UsageError(f"--env {name}'s value {why}", "--env")
        env[name] = value
    return env


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NEEDS = {  # (verb, flag given) -> flags it cannot go with
    ("logs", "grep"): ("lines", "offset", "limit", "follow"),
    ("logs", "since"): ("offset", "limit"),
    ("logs", "timestamps"): ("offset", "limit", "follow"),
    ("logs", "raw"): ("grep", "since", "timestamps", "offset", "limit", "follow"),
}


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _check_combinations(args: argparse.Namespace, usage: Usage) -> None:
    """Flags that need another, or that cannot go together: refused naming the first."""
    verb = args.verb

    def given(dest: str) -> bool:  # `--offset 0` is given; an unset flag is None or False
        value = getattr(args, dest, None)
        return value is not None and value is not False

    for (name, dest), others in _NEEDS.items():
        if name != verb or not given(dest):
            continue
        for other in others:
            if given(other):
                message = f"{_flag(dest)} cannot be combined with {_flag(other)}"
                raise UsageError(message, _flag(dest), usage(verb))
    if verb == "logs" and args.context is not None:
        if args.grep is None:
            raise UsageError("--context needs --grep", "--context", usage(verb))
        if not 0 <= args.context <= MAX_CONTEXT:
            raise UsageError(
                f"--context {args.context} is outside 0-{MAX_CONTEXT}", "--context", usage(verb)
            )
    if verb == "logs":
        args.since_ms = None
        if args.since is not None:
            from .since import BadSince, since_ms

            try:
                args.since_ms = since_ms(args.since, int(time.time() * 1000))
            except BadSince as exc:
                raise UsageError(f"--since {quote(args.since)} {exc}", "--since") from None
    if verb == "wait" and args.ready:
        other = "--until" if args.until is not None else "--port" if args.port is not None else None
        if other:
            message = f"--ready cannot be combined with {other}"
            raise UsageError(message, "--ready", usage(verb))
    if verb == "up" and args.json and not args.detach:
        message = "up --json needs --detach (without it the screen opens)"
        raise UsageError(message, "--json", usage(verb))
    if verb == "wait" and args.from_start and args.until is None:
        raise UsageError("--from-start needs --until", "--from-start", usage(verb))
