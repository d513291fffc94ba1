"""Spawning `sh -c COMMAND` in a new session, on pipes or on a pseudo-terminal.

posix_spawn (no Python-level fork) with the signals the shim ignores or handles
reset to their defaults, so the job starts exactly as from a shell. On a PTY the
slave is opened after setsid, which makes it the job's controlling terminal.
"""

from __future__ import annotations

import fcntl
import os
import signal

F_SETPIPE_SZ = 1031
PIPE_SIZE = 1 << 20
SHELL = "/bin/sh"
# Wait and cooperative exit, on a terminal: Ctrl-C reaches the whole foreground group, sh
# too, and a non-interactive sh (dash) then dies of SIGINT once its child exits, even when
# the child handled it (a REPL). These traps make it die of the signal only when the child
# did (status 128+N) and go on otherwise. On the command's own line, so shell errors keep
# their line numbers; `exec COMMAND` replaces the shell and its traps. Jobs on pipes get no
# traps: only a kill reaches their group, and `kill -INT $$` must still end the shell.
TTY_WRAPPER = (
    "trap '[ $? -eq 130 ] && { trap - INT; kill -INT $$; }' INT; "
    "trap '[ $? -eq 131 ] && { trap - QUIT; kill -QUIT $$; }' QUIT; "
)


def shell_argv(command: str, tty: bool) -> list[str]:
    return ["sh", "-c", TTY_WRAPPER + command if tty else command]


class Spawned:
    """The job's pid and its ends: output (pipe or PTY master), input (or -1), PTY master."""

    __slots__ = ("in_fd", "out_fd", "pid", "pty_fd")

    def __init__(self, pid: int, out_fd: int, in_fd: int, pty_fd: int = -1) -> None:
        self.pid, self.out_fd, self.in_fd, self.pty_fd = pid, out_fd, in_fd, pty_fd


def _defaults() -> list[int]:
    names = ("SIGPIPE", "SIGINT", "SIGTERM", "SIGHUP", "SIGCHLD", "SIGXFSZ", "SIGWINCH")
    return [getattr(signal, n) for n in names if hasattr(signal, n)]


def _env(spec: dict, tty: bool) -> dict[str, str]:
    env = dict(os.environ)
    env["JOBS_TUI_JOB_ID"] = spec["id"]
    if tty and env.get("TERM", "dumb") in ("", "dumb"):
        env["TERM"] = "xterm-256color"
    return env


def _spawn(spec: dict, actions: list, tty: bool) -> int:
    """`sh -c COMMAND` in a new session, signals at their defaults, none blocked."""
    return os.posix_spawn(
        SHELL,
        shell_argv(spec["command"], tty),
        _env(spec, tty),
        file_actions=actions,
        setsid=True,
        setsigdef=_defaults(),
        setsigmask=(),
    )


def set_winsize(fd: int, cols: int, rows: int) -> None:
    import struct
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def spawn_pipes(spec: dict) -> Spawned:
    out_r, out_w = os.pipe()
    try:
        fcntl.fcntl(out_r, F_SETPIPE_SZ, PIPE_SIZE)
    except OSError:
        pass
    if spec.get("stdin"):
        in_r, in_w = os.pipe()
    else:
        in_r, in_w = os.open(os.devnull, os.O_RDONLY), -1
    actions = [
        (os.POSIX_SPAWN_DUP2, in_r, 0),
        (os.POSIX_SPAWN_DUP2, out_w, 1),
        (os.POSIX_SPAWN_DUP2, out_w, 2),
    ]
    try:
        pid = _spawn(spec, actions, tty=False)
    finally:
        os.close(out_w)
        os.close(in_r)
    return Spawned(pid, out_r, in_w)


def spawn_pty(spec: dict) -> Spawned:
    master, slave = os.openpty()
    set_winsize(master, int(spec.get("cols") or 80), int(spec.get("rows") or 24))
    slave_path = os.ttyname(slave)
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, slave_path, os.O_RDWR, 0),
        (os.POSIX_SPAWN_DUP2, 0, 1),
        (os.POSIX_SPAWN_DUP2, 0, 2),
    ]
    try:
        pid = _spawn(spec, actions, tty=True)
    finally:
        os.close(slave)
    writer = os.dup(master)
    return Spawned(pid, master, writer, master)
