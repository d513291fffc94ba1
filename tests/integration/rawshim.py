"""A real shim started with a hand-made start spec (options the session does not pass yet),
and its socket spoken to directly: for the shim's own features (issue 27)."""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobs_tui.engine.session.launch import launch
from jobs_tui.engine.shim import procs


def spec_for(directory: Path, command: str, job_id: str = "j1", **extra: Any) -> dict:
    """A start spec of a job in `directory` (a 0700 registry directory of its own)."""
    directory.mkdir(mode=0o700, exist_ok=True)
    base = str(directory / job_id)
    return {
        "id": job_id,
        "command": command,
        "cwd": str(directory),
        "log": base + ".log",
        "previous": base + ".log.1",
        "status": base + ".status",
        "end": base + ".end",
        "socket": base + ".sock",
        "maxLogBytes": 0,
        "killGraceMs": 500,
        "timeoutMs": None,
        "stdin": False,
        "tty": False,
        "cols": 80,
        "rows": 24,
        "ownerPid": None,
        "ownerToken": None,
        "ownerPoll": False,
        "marker": procs.job_marker(str(directory), job_id),
        **extra,
    }


@dataclass
class RawShim:
    spec: dict
    ready: dict = field(default_factory=dict)

    @classmethod
    def start(cls, spec: dict) -> RawShim:
        return cls(spec, dict(launch(spec)))

    def ask(self, message: dict, timeout: float = 5.0) -> dict:
        """One request, its reply (events pushed meanwhile are skipped)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(self.spec["socket"])
            sock.sendall(json.dumps(message).encode() + b"\n")
            data = b""
            while b"\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    raise ConnectionError(f"no reply to {message}")
                data += chunk
        return json.loads(data.split(b"\n", 1)[0])

    def end(self, timeout: float = 30.0) -> dict:
        """The `.end` file, once the shim wrote it."""
        path = Path(self.spec["end"])
        deadline = time.monotonic() + timeout
        while not Path(self.spec["status"]).exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"no end file within {timeout}s")
            time.sleep(0.02)
        return json.loads(path.read_text())

    def kill(self) -> None:
        try:
            self.ask({"op": "kill", "signal": "SIGKILL", "graceMs": 0})
        except OSError:
            pass


def states(pids: list[int]) -> list[str]:
    """The state letter of each pid still alive (/proc/PID/stat)."""
    found = []
    for pid in pids:
        try:
            raw = Path(f"/proc/{pid}/stat").read_bytes()
        except OSError:
            continue
        found.append(raw[raw.rfind(b")") + 2 :].split()[0].decode())
    return found


def tree_pids(root: int) -> list[int]:
    """`root` and its descendants (a scan of /proc)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            raw = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        ppid = int(raw[raw.rfind(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(name))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found
