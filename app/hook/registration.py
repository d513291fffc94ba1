"""What a `jobs-tui mcp` server records so that its agent's hooks find its session.

`<state>/jobs-tui/agents/mcp-<pid>.json` (0600 in a 0700 directory): the server's pid and
start token, its session id, its registry directory, `wake_on_finish`, and its agent
process (pid and start token: see `identity`). It is written when the server's session
opens and removed when it closes; a hook skips (and removes) one whose server is gone.

Not in the registry directory: the hook must find it without knowing which registry the
server uses (Codex passes its servers only HOME, PATH and a few more, so a registry
variable may reach the hook and not the server; the agent's cwd moves). Not under
XDG_STATE_HOME alone, for the same reason: a hook looks in the state directory its own
environment names and in the one HOME alone names.
"""

from __future__ import annotations

import json
import os
import stat
import sys

from . import proctree
from .identity import agent_of

APP = "jobs-tui"
PREFIX, SUFFIX = "mcp-", ".json"
MAX_FILE = 64 * 1024
MAX_ENTRIES = 256  # registrations read per hook: a directory full of junk costs no more


class Registration:
    """One server's record: where it is (`path`), the server (pid, start token), its
    session's registry directory and the names of its file and lock there, and its agent
    process (pid, start token). Plain strings, no pathlib: a hook runs on every tool call."""

    __slots__ = (
        "agent",
        "lock_name",
        "path",
        "pid",
        "registry_dir",
        "registry_name",
        "session_id",
        "token",
        "wake_on_finish",
    )  # fmt: skip

    def __init__(
        self,
        path: str,
        pid: int,
        token: str,
        session_id: str,
        registry_dir: str,
        registry_name: str,
        lock_name: str,
        wake_on_finish: bool,
        agent: tuple[int, str] | None,
    ) -> None:
        self.path, self.pid, self.token, self.session_id = path, pid, token, session_id
        self.registry_dir, self.registry_name, self.lock_name = (
            registry_dir,
            registry_name,
            lock_name,
        )
        self.wake_on_finish, self.agent = wake_on_finish, agent


def state_dirs() -> list[str]:
    """Where registrations go (the first) and are looked for (all): `jobs-tui` in the
    state directory this environment names, then in the one HOME alone names."""
    if sys.platform.startswith("linux") or sys.platform.startswith("freebsd"):
        home = os.path.expanduser("~/.local/state")
        named = os.environ.get("XDG_STATE_HOME", "").strip() or home
        dirs = [named, home]
    else:
        import platformdirs

        dirs = [os.path.dirname(platformdirs.user_state_dir(APP))]
    unique = list(dict.fromkeys(os.path.abspath(d) for d in dirs))
    return [os.path.join(d, APP, "agents") for d in unique]


def _uid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else 0


def _private(path: str) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == _uid() and not st.st_mode & 0o077


def _make_private(path: str) -> bool:
    parent = os.path.dirname(path)
    for level in (os.path.dirname(parent), parent, path):  # the state dir, jobs-tui, agents
        try:
            os.mkdir(level, 0o700)
        except FileExistsError:
            pass
        except OSError:
            return False
    if not _private(path):
        try:
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode) and st.st_uid == _uid():
                os.chmod(path, 0o700)
        except OSError:
            return False
    return _private(path)


def register(
    session_id: str,
    registry_file: os.PathLike[str] | str,
    lock_file: os.PathLike[str] | str,
    wake_on_finish: bool,
) -> str | None:
    """Record this server for its agent's hooks: its session's registry file and the lock
    its writers take (the engine's names, so the hook computes none). None when it cannot:
    a server works without hooks."""
    registry_file, lock_file = os.path.abspath(registry_file), os.path.abspath(lock_file)
    me = proctree.myself()
    if me is None:
        return None
    agent = agent_of(proctree.ancestors(me.pid))
    data = {
        "version": 1,
        "pid": me.pid,
        "startToken": me.token,
        "sessionId": session_id,
        "registryDir": os.path.dirname(registry_file),
        "registryFile": os.path.basename(registry_file),
        "lockFile": os.path.basename(lock_file),
        "wakeOnFinish": bool(wake_on_finish),
        "agentPid": agent.pid if agent else None,
        "agentToken": agent.token if agent else None,
    }
    folder = state_dirs()[0]
    if not _make_private(folder):
        return None
    path = os.path.join(folder, f"{PREFIX}{me.pid}{SUFFIX}")
    temp = os.path.join(folder, f".{PREFIX}{me.pid}.{os.urandom(4).hex()}.tmp")
    try:
        fd = os.open(
            temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600
        )
        try:
            os.write(fd, json.dumps(data).encode())
        finally:
            os.close(fd)
        os.replace(temp, path)
    except OSError:
        try:
            os.unlink(temp)
        except OSError:
            pass
        return None
    return path


def unregister(path: str | None) -> None:
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass


def _name(value: object, prefix: str, suffix: str) -> str | None:
    """A file name the engine makes (`registry-<hex>.json`): nothing else, no path."""
    if not isinstance(value, str) or not value.startswith(prefix) or not value.endswith(suffix):
        return None
    middle = value[len(prefix) : len(value) - len(suffix)]
    return value if middle and all(c in "0123456789abcdef" for c in middle) else None


def _read(path: str) -> Registration | None:
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != _uid() or st.st_size > MAX_FILE:
            return None
        data = json.loads(os.read(fd, MAX_FILE))
    except (OSError, ValueError, RecursionError):
        return None
    finally:
        os.close(fd)
    if not isinstance(data, dict):
        return None
    pid, token, session = data.get("pid"), data.get("startToken"), data.get("sessionId")
    folder = data.get("registryDir")
    if not (isinstance(pid, int) and not isinstance(pid, bool) and pid > 1):
        return None
    if not (isinstance(token, str) and isinstance(session, str) and session):
        return None
    if not (isinstance(folder, str) and os.path.isabs(folder)):
        return None
    registry_name = _name(data.get("registryFile"), "registry-", ".json")
    lock_name = _name(data.get("lockFile"), "persist-", ".lock")
    if registry_name is None or lock_name is None:
        return None
    agent_pid, agent_token = data.get("agentPid"), data.get("agentToken")
    agent = None
    if isinstance(agent_pid, int) and not isinstance(agent_pid, bool):
        agent = (agent_pid, agent_token) if isinstance(agent_token, str) else None
    wake = data.get("wakeOnFinish") is True
    return Registration(path, pid, token, session, folder, registry_name, lock_name, wake, agent)


def read_all() -> list[Registration]:
    """Every well-formed registration in the private state directories (not checked for
    liveness: see `alive`)."""
    found: list[Registration] = []
    for folder in state_dirs():
        if not _private(folder):
            continue
        try:
            names = sorted(os.listdir(folder))[:MAX_ENTRIES]
        except OSError:
            continue
        for name in names:
            if name.startswith(PREFIX) and name.endswith(SUFFIX):
                entry = _read(os.path.join(folder, name))
                if entry is not None:
                    found.append(entry)
    return found


def alive(entry: Registration) -> bool:
    """Its server still runs: the same pid with the same start token."""
    proc = proctree.read(entry.pid)
    return proc is not None and proc.token == entry.token
