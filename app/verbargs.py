"""Each verb's own arguments (`argv.verb_parser` builds its parser from them) and the
exit-status tables some verbs' `--help` ends with: what a verb takes, apart from how the
command line is parsed and checked (`argv`, `argcheck`)."""

from __future__ import annotations

import argparse

from jobs_tui.engine.shim.protocol import KILL_SIGNALS as SIGNALS

from .argcheck import whole
from .errors import quote

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


def signal_name(text: str) -> str:
    name = text.upper()
    name = name if name.startswith("SIG") else "SIG" + name
    if name not in SIGNALS:
        raise argparse.ArgumentTypeError(f"{quote(text)} is not one of {', '.join(SIGNALS)}")
    return name


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


def _pid(text: str) -> int:
    pid = whole(text)
    if pid < 1:
        raise argparse.ArgumentTypeError(f"{quote(text)} is not a process id")
    return pid


def _strays(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--kill",
        nargs="+",
        type=_pid,
        metavar="PID",
        help="kill these strays' trees (TERM, then KILL after the grace); each must be a "
        "stray now, else nothing is killed",
    )


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


VERB_ARGS = {
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
    "strays": _strays,
    "config": _config,
    "schema": _schema,
    "mcp": _mcp,
    "serve": _serve,
    "setup": _setup,
    "hook": _hook,
}
