"""A declared job's readiness probes, run inside its shim: `log`, `port`, `http`, `exec`.

Each probe says pass or not; `declared.Declared` runs them every `period_ms` from the
command's spawn until one passes, and marks the job not ready once `limit_ms` is over.
Stdlib only, and nothing heavy at import: `http.client` is loaded by the first http probe.

- `log`: the shim sees every byte it writes to the log (`LogWriter.observer`): the
  target is matched there, as it goes by, never by re-reading the file.
- `port`: a TCP connect to 127.0.0.1 (a refused or accepted local connect returns at
  once; `timeout_ms` bounds the rest).
- `http`: a GET with `http.client`; a 2xx or 3xx status passes.
- `exec`: `sh -c TARGET` in the job's directory and environment, without blocking the
  shim: it is reaped by the shim's own loop (`reaped`), and killed after `timeout_ms`.
"""

import _signal
import _socket
import os

PASS, FAIL, PENDING = "pass", "fail", "pending"


class LogProbe:
    """The target text in the output, across chunk boundaries (a carry of len-1 bytes)."""

    def __init__(self, target: str) -> None:
        self.needle = str(target).encode("utf-8", "replace")
        self.carry = b""
        self.seen = False

    def feed(self, data: "bytes | memoryview") -> bool:
        if self.seen or not self.needle:
            return self.seen
        chunk = self.carry + bytes(data)
        if self.needle in chunk:
            self.seen = True
            self.carry = b""
            return True
        keep = len(self.needle) - 1
        self.carry = chunk[-keep:] if keep else b""
        return False

    def reset(self) -> None:
        self.carry, self.seen = b"", False


def check_port(port: int, timeout_s: float) -> bool:
    """A TCP connect to 127.0.0.1:port succeeds."""
    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout_s)
        sock.connect(("127.0.0.1", int(port)))
        return True
    except OSError:
        return False
    finally:
        sock.close()


def split_url(url: str) -> "tuple[bool, str, int | None, str]":
    """(https, host, port, path) of an http(s) URL; ValueError if it is not one."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        raise ValueError(f"not an http URL: {url!r}")
    where, _, path = rest.partition("/")
    if where.startswith("["):  # [::1]:8000
        host, _, port = where[1:].partition("]")
        port = port.removeprefix(":")
    else:
        host, _, port = where.partition(":")
    if not host:
        raise ValueError(f"no host in {url!r}")
    return scheme.lower() == "https", host, int(port) if port else None, "/" + path


def check_http(url: str, timeout_s: float) -> bool:
    """GET `url`: a 2xx or 3xx status passes (redirects are not followed)."""
    import http.client  # only a job with an http probe needs it

    secure, host, port, path = split_url(url)
    kind = http.client.HTTPSConnection if secure else http.client.HTTPConnection
    conn = kind(host, port, timeout=timeout_s)
    try:
        conn.request("GET", path, headers={"User-Agent": "jobs-tui-probe"})
        return 200 <= conn.getresponse().status < 400
    except (OSError, http.client.HTTPException, ValueError):
        return False
    finally:
        conn.close()


class ExecProbe:
    """`sh -c TARGET` in a session of its own, stdio on /dev/null; its exit is reaped by
    the shim (`reaped`), never waited for here."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.pid = 0
        self.deadline = 0.0
        self.result: str | None = None

    def start(self, env: dict, now: float, timeout_s: float) -> None:
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ]
        self.result = None
        try:
            self.pid = os.posix_spawn(
                "/bin/sh", ["sh", "-c", self.command], env, file_actions=actions, setsid=True
            )
        except OSError:
            self.pid, self.result = 0, FAIL
            return
        self.deadline = now + timeout_s

    @property
    def running(self) -> bool:
        return self.pid > 0

    def reaped(self, pid: int, status: int) -> bool:
        """The shim reaped `pid`: ours? Then its result is known."""
        if pid != self.pid or pid <= 0:
            return False
        ok = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        self.pid, self.result = 0, PASS if ok else FAIL
        return True

    def expire(self, now: float) -> None:
        """Past its timeout: killed (its whole session); the reap then says it failed."""
        if self.pid > 0 and now >= self.deadline:
            self.stop()

    def stop(self) -> None:
        if self.pid > 0:
            try:
                os.killpg(self.pid, _signal.SIGKILL)
            except OSError:
                pass


def check_probe(probe: dict) -> None:
    """ValueError unless `probe` is one the shim can run."""
    kind, target = probe.get("kind"), probe.get("target")
    if kind not in ("log", "port", "http", "exec"):
        raise ValueError(f"declared: unknown probe kind {kind!r}")
    if kind == "port" and not (isinstance(target, int) and 0 < target < 65536):
        raise ValueError(f"declared: a port probe needs a port, not {target!r}")
    if kind == "http":
        split_url(str(target))
    if kind in ("log", "exec") and not (isinstance(target, str) and target):
        raise ValueError(f"declared: a {kind} probe needs a text, not {target!r}")
    for key in ("period_ms", "timeout_ms", "limit_ms"):
        value = probe.get(key)
        if value is not None and not (isinstance(value, int) and value >= 0):
            raise ValueError(f"declared: ready.{key} must be a number of ms, not {value!r}")
