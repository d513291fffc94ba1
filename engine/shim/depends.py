"""A declared job's dependencies, as their files in the shared registry directory say.

Read by a waiting job's shim (declared.py): `<id>.started`, `<id>.ready` and `<id>.end`
of each job it depends on, and whether that job's shim still lives. Stdlib only.
"""

import os

from . import procs
from .shimjson import loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .main import Shim

END_LIMIT = 65536


def describe_exit(status: "int | None") -> str:
    if status is None:
        return "no exit status"
    if status < 0:
        return procs.signal_name(-status)
    return f"exit {status}"


class Dependency:
    """One job this one waits for, and the names of its files in the registry directory."""

    def __init__(self, shim: "Shim", entry: dict) -> None:
        self.id = str(entry["id"])
        self.name = str(entry.get("name") or self.id)
        self.until = entry.get("until") or "started"
        if self.until not in ("started", "ready", "succeeded"):
            raise ValueError(f"depends: {self.name}: unknown state {self.until!r}")
        files = entry.get("files") or {}
        keys = ("started", "ready", "end")
        self.files = {key: own_name(shim, files.get(key), key) for key in keys}
        pid = entry.get("shimPid")
        self.shim_pid = pid if isinstance(pid, int) and pid > 0 else None
        self.shim_token = entry.get("shimToken")

    def check(self, shim: "Shim") -> "tuple[bool, str | None]":
        """(reached, why it never will: None while it still may). A dependency whose
        supervisor is gone without an end (killed -9) will never get there either."""
        reached, failure = self.look(shim)
        if reached or failure is not None or self.shim_pid is None:
            return reached, failure
        if procs.same_process(self.shim_pid, self.shim_token):
            return False, None
        reached, failure = self.look(shim)  # it may have written its end as it went
        if reached or failure is not None:
            return reached, failure
        return False, f"{self.name}'s supervisor is gone, and it left no end"

    def read_json(self, shim: "Shim", key: str) -> "dict | None":
        try:
            value = loads(shim.dir.read_file(self.files[key], END_LIMIT))
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def look(self, shim: "Shim") -> "tuple[bool, str | None]":
        """What the dependency's files say: (reached, why it never will)."""
        end = self.read_json(shim, "end")
        if self.until == "started":
            if shim.dir.is_file(self.files["started"]):
                return True, None
            if end is not None:
                return False, f"{self.name} ended before it started ({end_words(end)})"
            return False, None
        if self.until == "ready":
            ready = self.read_json(shim, "ready")
            if ready is not None and ready.get("ready") is True:
                return True, None
            if end is not None:
                return False, f"{self.name} ended before it was ready ({end_words(end)})"
            if ready is not None and ready.get("ready") is False:
                return False, f"{self.name} was not ready in time ({ready.get('detail') or ''})"
            return False, None
        if end is None:
            return False, None
        if end.get("exitStatus") == 0 and end.get("reason") in (None, "exit"):
            return True, None
        return False, f"{self.name} did not succeed ({end_words(end)})"


def end_words(end: dict) -> str:
    reason = end.get("reason") or "exit"
    words = describe_exit(end.get("exitStatus"))
    detail = end.get("detail")
    if reason != "exit":
        words = f"{reason}, {words}"
    return f"{words}: {detail}" if detail else words


def own_name(shim: "Shim", path: "str | None", key: str) -> str:
    """The name, in the shim's registry directory, of a file the session named by path."""
    if not path or os.path.dirname(path) != os.path.dirname(shim.spec["log"]):
        raise ValueError(f"declared: the {key} file {path!r} is not in the registry directory")
    return os.path.basename(path)
