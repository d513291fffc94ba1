"""Where `jobs-tui serve` takes its token: a private file, the environment, argv, or chance.

The token lets whoever holds it type into the user's terminal jobs, so it must not be
where another local user can read it. A process's argv is: `ps` shows every user's
command lines, so `--token T` still works but warns. The others are private:

- `--token-file PATH`: read once at start, and only if PATH itself (not a symlink to
  it) is a regular file owned by the effective uid with no permission bit for group or
  others (as ssh insists of a private key; a file others may *write* would let them
  choose the token). The checks are made on the opened descriptor (`O_NOFOLLOW`, and
  the inode must be the one `lstat` saw), so a file swapped in between is not read; a
  FIFO or device is refused before it is opened. One trailing newline is stripped
  (`echo` and editors add it); anything else must be a valid token.
- `JOBS_TUI_SERVE_TOKEN`: another user cannot read a process's environment. The
  server removes it from its own environment once read, so no tab's app and no job
  started from a tab inherits it.

A flag wins over the environment (the nearer, more specific word); `--token` with
`--token-file` is refused, naming both, as ambiguous. With none of them a token is
generated (`secrets.token_urlsafe`) and printed only in the URL on stdout.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
import sys
from dataclasses import dataclass

from ..errors import UsageError, quote

ENV = "JOBS_TUI_SERVE_TOKEN"
TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")
TOKEN_MIN, TOKEN_MAX = 16, 256
ARGV_WARNING = (
    "jobs-tui: warning: --token is visible to every local user in ps; "
    "use --token-file or JOBS_TUI_SERVE_TOKEN"
)
MAKE_ONE = "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"


@dataclass(frozen=True)
class Token:
    """The secret, and where it came from (`--token`, `--token-file`, the env, generated)."""

    value: str
    source: str


def token_problem(text: str, got: str | None = None) -> str | None:
    """Why `text` is not a token (without echoing it), or None: it is one."""
    if not TOKEN_MIN <= len(text) <= TOKEN_MAX or not set(text) <= TOKEN_CHARS:
        return (
            f"must be {TOKEN_MIN}-{TOKEN_MAX} characters of A-Z a-z 0-9 - _ . ~ "
            f"(got {got or f'{len(text)} characters'})"
        )
    return None


def choose(argv_token: str | None, token_file: str | None) -> Token:
    """The server's token, by the precedence above; refuses what is not private or valid.

    Always takes `JOBS_TUI_SERVE_TOKEN` out of this process's environment, used or not:
    the tabs' apps get a copy of it, and their jobs one of theirs.
    """
    from_env = os.environ.pop(ENV, None)
    if argv_token is not None and token_file is not None:
        raise UsageError(
            "--token and --token-file: give one, not both (the file keeps it out of ps)",
            "--token-file",
        )
    if token_file is not None:
        return Token(read_token_file(token_file), "--token-file")
    if argv_token is not None:
        sys.stderr.write(ARGV_WARNING + "\n")
        sys.stderr.flush()
        return Token(argv_token, "--token")
    if from_env is not None:
        if not from_env:
            raise UsageError(f"{ENV}: is empty (unset it for a generated token)", ENV)
        problem = token_problem(from_env)
        if problem:
            raise UsageError(f"{ENV}: {problem}", ENV)
        return Token(from_env, ENV)
    return Token(secrets.token_urlsafe(24), "generated")


def read_token_file(path: str) -> str:
    """The token in `path`, if it is ours alone; else a UsageError naming `--token-file`."""
    where = f"--token-file {quote(path)}"

    def refuse(why: str) -> UsageError:
        return UsageError(f"{where}: {why}", "--token-file")

    try:
        seen = os.lstat(path)
    except OSError as exc:
        raise refuse(exc.strerror or str(exc)) from None
    if stat.S_ISLNK(seen.st_mode):
        raise refuse("is a symlink; name the file itself (a link can be pointed elsewhere)")
    if not stat.S_ISREG(seen.st_mode):
        raise refuse("is not a regular file")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # made a symlink since the lstat
            raise refuse("is a symlink; name the file itself") from None
        raise refuse(exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != (seen.st_dev, seen.st_ino):
            raise refuse("was replaced while it was being opened")
        problem = _not_private(info, path)
        if problem:
            raise refuse(problem)
        data = os.read(fd, TOKEN_MAX + 2)  # a token, a newline, and one byte too many
    except OSError as exc:
        raise refuse(exc.strerror or str(exc)) from None
    finally:
        os.close(fd)
    if data.endswith(b"\n"):
        data = data[:-1]
    if not data:
        raise refuse(f"is empty; put a token in it, e.g. umask 077; {MAKE_ONE} > FILE")
    text = data.decode("ascii", "replace")  # anything not ASCII is refused below
    problem = token_problem(text, f"{info.st_size} bytes" if len(text) > TOKEN_MAX else None)
    if problem:
        raise refuse(problem)
    return text


def _not_private(info: os.stat_result, path: str) -> str | None:
    """Why a file others could read, write or own must not hold the token, or None."""
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    mine = os.geteuid()
    if info.st_uid != mine:
        return f"is owned by uid {info.st_uid}, not by you (uid {mine})"
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        return f"is open to group or others (mode {mode:04o}); chmod 600 {quote(path)}"
    return None


__all__ = ["ARGV_WARNING", "ENV", "TOKEN_MAX", "TOKEN_MIN", "Token", "choose", "token_problem"]
