"""Who or what ended a job (issue 27, feature 3): a pure rule from the facts a finished job
leaves, to one `endedBy` value and its words (`killed · SIGKILL · by the kernel: out of
memory`).

The facts: how it ended (an exit code, or the signal it died of), the shim's end reason
(exit, kill, deadline, owner-gone, shim-gone, output-limit, dependency, crash-loop), who
asked for a kill (the door and the session, which the session knows: the shim does not),
whether an OOM kill counter moved at its SIGKILL (shim/ending.py: its cgroup's is
certain, the machine's likely), and an outside signal's sender where one is known.

The sender of a signal that killed a process is not told to its parent: `waitid` fills
`si_pid` with the child's own pid and `si_status` with the signal, never the sender's
pid (that reaches only a handler with SA_SIGINFO in the process itself, and SIGKILL has
none). Only tracing says it (the `signal:signal_generate` tracepoint, audit rules on
kill(2)), which a user's shim cannot use. So `sender_pid` is for what another source
knows, and an outside signal's sender is usually "unknown".

Wiring: the session fills `EndFacts` when it settles a record (`endedBy` in the record and
its JSON: `EndedBy.to_json()`; the words in the row, the detail pane and `status`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Signals a process raises on itself when it crashes (a fault, abort, a bad syscall).
CRASH_SIGNALS = frozenset(
    {"SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT", "SIGSYS", "SIGTRAP", "SIGXCPU"}
)
# The doors a kill request comes through, as said on the screen.
DOORS = {
    "screen": "the screen",
    "cli": "the command line",
    "mcp": "an agent (MCP)",
    "browser": "the browser",
    "hook": "an agent's hook",
    "tool": "an agent's tool call",
}
# `by`: who or what ended it.
SELF, REQUEST, DEADLINE, OWNER_GONE, SHIM_GONE = (
    "self",
    "request",
    "deadline",
    "owner-gone",
    "shim-gone",
)
KERNEL_OOM, OUTSIDE, OUTPUT_LIMIT, DEPENDENCY, CRASH_LOOP, UNKNOWN = (
    "kernel-oom",
    "outside",
    "output-limit",
    "dependency",
    "crash-loop",
    "unknown",
)


BY_VALUES = (
    SELF,
    REQUEST,
    DEADLINE,
    OWNER_GONE,
    SHIM_GONE,
    KERNEL_OOM,
    OUTSIDE,
    OUTPUT_LIMIT,
    DEPENDENCY,
    CRASH_LOOP,
    UNKNOWN,
)
# `endedBy` as a record carries it (EndedBy.to_json), for the schemas that show records.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Who or what ended a finished job: self (it exited or crashed), request "
    "(a kill: door and session say who asked), deadline, owner-gone (its session died), "
    "shim-gone (its supervisor died), kernel-oom (certain: false when only the machine's "
    "OOM counter moved), outside (a signal nobody of ours sent; pid where known), "
    "output-limit, dependency, crash-loop, unknown.",
    "required": ["by"],
    "properties": {
        "by": {"type": "string", "examples": list(BY_VALUES)},
        "signal": {"type": "string"},
        "exitCode": {"type": "integer"},
        "door": {"type": "string", "examples": list(DOORS)},
        "session": {"type": "string"},
        "pid": {"type": "integer"},
        "command": {"type": "string"},
        "certain": {"type": "boolean"},
    },
    "additionalProperties": True,
}


@dataclass(frozen=True)
class EndFacts:
    """What is known of a job's end. Exactly one of `exit_code` and `signal` is set for a
    job whose end was seen; neither for one whose exit code was never recorded."""

    exit_code: int | None = None
    signal: str | None = None  # the signal it died of ("SIGKILL")
    reason: str | None = None  # the shim's end reason
    door: str | None = None  # a kill request's door (DOORS)
    session: str | None = None  # the session that asked
    requested_signal: str | None = None  # what the request sent first ("SIGTERM")
    oom_source: str | None = None  # "cgroup" | "machine": an OOM kill counter moved
    sender_pid: int | None = None  # an outside signal's sender, where known
    sender_command: str | None = None


@dataclass(frozen=True)
class EndedBy:
    by: str
    signal: str | None = None
    exit_code: int | None = None
    door: str | None = None
    session: str | None = None
    pid: int | None = None  # an outside sender
    command: str | None = None
    certain: bool = True  # False: a likely cause (the machine's OOM counter moved)

    def to_json(self) -> dict[str, Any]:
        """`{"by": ..., ...}` without the fields that say nothing (camelCase JSON)."""
        out: dict[str, Any] = {"by": self.by}
        for key, value in (
            ("signal", self.signal),
            ("exitCode", self.exit_code),
            ("door", self.door),
            ("session", self.session),
            ("pid", self.pid),
            ("command", self.command),
        ):
            if value is not None:
                out[key] = value
        if not self.certain:
            out["certain"] = False
        return out

    @classmethod
    def from_json(cls, raw: Any) -> EndedBy | None:
        """Back from a record (unknown keys ignored, a malformed value is None)."""
        if not isinstance(raw, dict) or not isinstance(raw.get("by"), str):
            return None

        def typed(key: str, kind: type) -> Any:
            value = raw.get(key)
            return value if isinstance(value, kind) and not isinstance(value, bool) else None

        return cls(
            by=raw["by"],
            signal=typed("signal", str),
            exit_code=typed("exitCode", int),
            door=typed("door", str),
            session=typed("session", str),
            pid=typed("pid", int),
            command=typed("command", str),
            certain=raw.get("certain") is not False,
        )

    def words(self) -> str:
        """The end in words: `exit 3`, `killed · SIGTERM · by the screen (session ab12)`."""
        if self.by == SELF and self.signal is None:
            return f"exit {self.exit_code}"
        head = f"killed · {self.signal}" if self.signal else "ended"
        return f"{head} · {self._why()}"

    def _why(self) -> str:
        if self.by == SELF:
            return "by itself (it crashed)"
        if self.by == REQUEST:
            door = DOORS.get(self.door or "", self.door or "a request")
            return f"by {door}" + (f" (session {self.session[:8]})" if self.session else "")
        if self.by == KERNEL_OOM:
            return "by the kernel: out of memory" + ("" if self.certain else " (likely)")
        if self.by == OUTSIDE:
            if self.pid is None:
                return "from outside (sender unknown)"
            return f"from outside: pid {self.pid}" + (f" {self.command}" if self.command else "")
        return {
            DEADLINE: "by its deadline",
            OWNER_GONE: "its session ended",
            SHIM_GONE: "its supervisor died",
            OUTPUT_LIMIT: "its output reached the limit",
            DEPENDENCY: "a dependency failed",
            CRASH_LOOP: "it kept crashing",
        }.get(self.by, "cause unknown")


_BY_REASON = {
    "deadline": DEADLINE,
    "owner-gone": OWNER_GONE,
    "shim-gone": SHIM_GONE,
    "output-limit": OUTPUT_LIMIT,
    "dependency": DEPENDENCY,
    "crash-loop": CRASH_LOOP,
}


def ended_by(facts: EndFacts) -> EndedBy:
    """The rule, first match wins:

    1. the shim's own reasons (deadline, owner gone, supervisor gone, output limit, a
       declared job's dependency or crash loop);
    2. a kill request (door, session), unless it asked for less than SIGKILL, the job
       died of SIGKILL and its own cgroup's OOM counter moved: the kernel came first;
    3. an exit code: the job itself;
    4. SIGKILL with an OOM counter moving: the kernel (certain from the job's cgroup,
       likely from the machine's);
    5. a crash signal (SIGSEGV, SIGABRT...): the job itself;
    6. any other signal: from outside, with the sender where known;
    7. nothing recorded: unknown.
    """
    sig, code = facts.signal, facts.exit_code
    oom = facts.oom_source in ("cgroup", "machine") and sig == "SIGKILL"
    if facts.reason in _BY_REASON:
        return EndedBy(_BY_REASON[facts.reason], sig, code)
    if facts.reason == "kill":
        kernel_first = (
            oom and facts.oom_source == "cgroup" and facts.requested_signal not in (None, sig)
        )
        if not kernel_first:
            return EndedBy(REQUEST, sig, code, facts.door, facts.session)
    if sig is None and code is not None:
        return EndedBy(SELF, None, code)
    if oom:
        return EndedBy(KERNEL_OOM, sig, certain=facts.oom_source == "cgroup")
    if sig in CRASH_SIGNALS:
        return EndedBy(SELF, sig)
    if sig is not None:
        return EndedBy(OUTSIDE, sig, pid=facts.sender_pid, command=facts.sender_command)
    return EndedBy(UNKNOWN)
