"""Spawning `sh -c COMMAND` in a new session, on pipes or on a pseudo-terminal.

fork + setsid + PR_SET_PDEATHSIG(SIGKILL) + dup2 + execve, in the single-threaded shim:
the job's group leader dies with its shim, whatever kills the shim (posix_spawn cannot set
a death signal). The signals the shim ignores or handles are reset to their defaults, so
the job starts exactly as from a shell. On a PTY the slave is opened after setsid, which
makes it the job's controlling terminal. Every job carries its marker (`JOBS_TUI_JOB`) in
its environment, so what is left of its tree can be found once its shim is gone.

Stdlib only, and only what the shim's start needs: `_signal` (not `signal`, whose enums
import `enum`), prctl(2) through `_ctypes` (not `ctypes`, whose Python layer costs more
than the call).
"""

import _signal
import fcntl
import os
import sys

from . import procs

LINUX = sys.platform.startswith("linux")
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
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

    __slots__ = ("in_fd", "out_fd", "pid", "pty_fd", "tty_name")

    def __init__(
        self, pid: int, out_fd: int, in_fd: int, pty_fd: int = -1, tty_name: str = ""
    ) -> None:
        self.pid, self.out_fd, self.in_fd, self.pty_fd = pid, out_fd, in_fd, pty_fd
        self.tty_name = tty_name  # a terminal job's /dev/pts/N


def _defaults() -> list[int]:
    names = ("SIGPIPE", "SIGINT", "SIGTERM", "SIGHUP", "SIGCHLD", "SIGXFSZ", "SIGWINCH")
    return [getattr(_signal, n) for n in names if hasattr(_signal, n)]


_prctl_call = None


def _prctl(option: int, value: int) -> bool:
    """prctl(option, value, 0, 0, 0) == 0 (Linux; False elsewhere or on any failure)."""
    global _prctl_call
    if not LINUX:
        return False
    try:
        if _prctl_call is None:
            import _ctypes

            class Int(_ctypes._SimpleCData):
                _type_ = "i"

            class ULong(_ctypes._SimpleCData):
                _type_ = "L"

            class Prctl(_ctypes.CFuncPtr):
                _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
                _restype_ = Int
                _argtypes_ = (Int, ULong, ULong, ULong, ULong)

            libc = _ctypes.dlopen(None, os.RTLD_NOW | os.RTLD_LOCAL)
            _prctl_call = Prctl(_ctypes.dlsym(libc, "prctl"))
        return _prctl_call(option, value, 0, 0, 0) == 0
    except Exception:
        return False


def set_child_subreaper() -> bool:
    """Make orphaned descendants re-parent to us (Linux), so a kill can find them."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def set_parent_death_signal(signum: int) -> bool:
    """Linux: the kernel sends us `signum` when the thread that forked us exits."""
    return _prctl(PR_SET_PDEATHSIG, signum)


def _env(spec: dict, tty: bool) -> dict[str, str]:
    env = dict(os.environ)
    env["JOBS_TUI_JOB_ID"] = spec["id"]
    if spec.get("marker"):
        env[procs.MARKER_ENV] = spec["marker"]
    if tty and env.get("TERM", "dumb") in ("", "dumb"):
        env["TERM"] = "xterm-256color"
    return env


def _spawn(
    spec: dict,
    dups: list[tuple[int, int]],
    tty: bool,
    slave: str | None = None,
    cgroup_fd: int = -1,
) -> int:
    """`sh -c COMMAND` in a new session, signals at their defaults, none blocked.

    The child reports a failure before exec on a close-on-exec pipe; EOF means exec worked.
    With `cgroup_fd` (the job's `cgroup.procs`) the child joins its cgroup first, before
    it can fork: nothing of the job ever runs outside it.
    """
    argv, env = shell_argv(spec["command"], tty), _env(spec, tty)
    parent = os.getpid()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no allocation-heavy work, nothing that could block
        try:
            os.close(err_r)
            _signal.set_wakeup_fd(-1)  # a signal now must not wake the shim's loop
            os.setsid()
            set_parent_death_signal(_signal.SIGKILL)
            if os.getppid() != parent:  # the shim died before the death signal was armed
                os._exit(1)
            if cgroup_fd >= 0:
                try:
                    os.write(cgroup_fd, b"0")
                except OSError:
                    pass  # the shim sees it is not in there, and goes without
            if slave is not None:
                fd = os.open(slave, os.O_RDWR)  # after setsid: our controlling terminal
                dups = [(fd, 0), (fd, 1), (fd, 2)]
            for source, target in dups:
                os.dup2(source, target)
            for signum in _defaults():
                _signal.signal(signum, _signal.SIG_DFL)
            _signal.pthread_sigmask(_signal.SIG_SETMASK, ())
            os.execve(SHELL, argv, env)
        except BaseException as exc:
            try:
                os.write(err_w, f"{type(exc).__name__}: {exc}".encode(errors="replace")[:500])
            finally:
                os._exit(127)
    os.close(err_w)
    chunks = []
    try:
        while chunk := os.read(err_r, 512):
            chunks.append(chunk)
    finally:
        os.close(err_r)
    if chunks:
        os.waitpid(pid, 0)
        raise OSError(f"could not start {SHELL}: {b''.join(chunks).decode(errors='replace')}")
    return pid


def set_winsize(fd: int, cols: int, rows: int) -> None:
    import termios

    size = b"".join(n.to_bytes(2, sys.byteorder) for n in (rows, cols, 0, 0))  # struct winsize
    fcntl.ioctl(fd, termios.TIOCSWINSZ, size)


def spawn_pipes(spec: dict, cgroup_fd: int = -1) -> Spawned:
    out_r, out_w = os.pipe()
    try:
        fcntl.fcntl(out_r, F_SETPIPE_SZ, PIPE_SIZE)
    except OSError:
        pass
    if spec.get("stdin"):
        in_r, in_w = os.pipe()
    else:
        in_r, in_w = os.open(os.devnull, os.O_RDONLY), -1
    try:
        pid = _spawn(spec, [(in_r, 0), (out_w, 1), (out_w, 2)], tty=False, cgroup_fd=cgroup_fd)
    finally:
        os.close(out_w)
        os.close(in_r)
    return Spawned(pid, out_r, in_w)


def spawn_pty(spec: dict, cgroup_fd: int = -1) -> Spawned:
    master, slave = os.openpty()
    set_winsize(master, int(spec.get("cols") or 80), int(spec.get("rows") or 24))
    name = os.ttyname(slave)
    try:
        pid = _spawn(spec, [], tty=True, slave=name, cgroup_fd=cgroup_fd)
    finally:
        os.close(slave)
    writer = os.dup(master)
    return Spawned(pid, master, writer, master, name)


class StartCalledOff(RuntimeError):
    """The caller of a held start (a restart) called it off, or died: nothing is spawned."""


def wait_for_go(ready_fd: int, hold_fd: int) -> None:
    """A held start: say we are ready to spawn (a `held` line on the ready pipe), then wait
    for the caller's go (one byte). Its end of the pipe closed instead: StartCalledOff."""
    os.write(ready_fd, b'{"held": true}\n')
    try:
        word = os.read(hold_fd, 1)
    finally:
        os.close(hold_fd)
    if word != b"g":
        raise StartCalledOff("its start was called off before the job started")
