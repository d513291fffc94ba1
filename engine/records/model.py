"""Job records as the registry format (v1) defines them, plus our own extra fields."""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from enum import StrEnum

from jobs_tui.engine.shim.protocol import (
    KILL_SIGNALS as KILL_SIGNALS,  # defined once, in the protocol
)
from jobs_tui.engine.shim.protocol import MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS

from .endedby import EndedBy
from .ids import is_job_id

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from typing import Any


def now_ms() -> int:
    """Wall-clock epoch milliseconds, the registry format's time unit."""
    return int(time.time() * 1000)


class JobStatus(StrEnum):
    RUNNING = "running"
    EXITED = "exited"
    KILLED = "killed"
    FAILED = "failed"
    UNKNOWN = "unknown"

    @property
    def finished(self) -> bool:
        return self is not JobStatus.RUNNING


class EndReason(StrEnum):
    EXIT = "exit"
    KILL = "kill"
    DEADLINE = "deadline"
    OWNER_GONE = "owner-gone"
    DEPENDENCY = "dependency"  # a declared job's dependency failed: it never ran
    CRASH_LOOP = "crash-loop"  # a declared job exited again after max_restarts restarts


ACTIONS = (
    "start",
    "list",
    "status",
    "logs",
    "send",
    "kill",
    "wait",
    "clear",
    "restart",
    "up",  # the project's declared jobs (jobs-tui.toml), in dependency order
    "down",
)

# (python attribute, JSON key, accepted JSON types, may be null)
_CORE: tuple[tuple[str, str, tuple[type, ...], bool], ...] = (
    ("id", "id", (str,), False),
    ("label", "label", (str,), False),
    ("command", "command", (str,), False),
    ("cwd", "cwd", (str,), False),
    ("pid", "pid", (int,), True),
    ("status", "status", (str,), False),
    ("exit_code", "exitCode", (int,), True),
    ("signal", "signal", (str,), True),
    ("started_at", "startedAt", (int, float), False),
    ("finished_at", "finishedAt", (int, float), True),
    ("log_path", "logPath", (str,), False),
    ("detached", "detached", (bool,), False),
    ("wake", "wake", (bool,), False),
    ("session_id", "sessionId", (str,), False),
    ("seen", "seen", (bool,), False),
    ("last_line", "lastLine", (str,), False),
    ("status_path", "statusPath", (str,), True),
    ("start_token", "startToken", (str,), True),
)
_OPTIONAL_CORE = {"statusPath", "startToken"}
_CORE_KEYS = frozenset(key for _a, key, _t, _n in _CORE)

# Our extra fields, with their JSON type: readers that do not know them keep them untouched.
_EXTRA: tuple[tuple[str, str, type], ...] = (
    ("end_reason", "endReason", str),
    ("exit_status", "exitStatus", int),
    ("stdin", "stdin", bool),
    ("tty", "tty", bool),
    ("timeout_ms", "timeoutMs", int),
    ("shim_pid", "shimPid", int),
    ("shim_token", "shimToken", str),
    ("log_bytes", "logBytes", int),
    ("log_lost_bytes", "logLostBytes", int),
    ("stopping_at", "stoppingAt", int),
    ("log_note", "logNote", str),
    ("restart_of", "restartOf", str),
    ("term_cols", "cols", int),
    ("term_rows", "rows", int),
    ("remaining_processes", "remainingProcesses", int),
    ("cgroup", "cgroup", str),
    # A declared job's (issue 26): its name, phase, what it waits for, restarts, last exit.
    ("declared_name", "name", str),
    ("phase", "phase", str),
    ("waiting_for", "waitingFor", str),
    ("restarts", "restarts", int),
    ("last_exit", "lastExit", int),
    ("max_restarts", "maxRestarts", int),
    ("phase_detail", "phaseDetail", str),
)
# Written only when set: a record that is not a restart, has no extra environment or no
# terminal looks as it always did.
_SPARSE = {"restartOf", "envNames", "cols", "rows", "cgroup"}
_SPARSE |= {"name", "phase", "waitingFor", "restarts", "lastExit", "maxRestarts", "phaseDetail"}
MAX_ENV_NAMES = 100


class RecordError(ValueError):
    """A registry entry whose fields do not have the format's types."""


@dataclass
class JobRecord:
    id: str
    label: str
    command: str
    cwd: str
    pid: int | None
    status: JobStatus
    exit_code: int | None
    signal: str | None
    started_at: int
    finished_at: int | None
    log_path: str
    detached: bool
    wake: bool
    session_id: str
    seen: bool = False
    last_line: str = ""
    status_path: str | None = None
    start_token: str | None = None
    end_reason: str | None = None
    exit_status: int | None = None
    stdin: bool = False
    tty: bool = False
    timeout_ms: int | None = None
    shim_pid: int | None = None
    shim_token: str | None = None
    log_bytes: int = 0
    log_lost_bytes: int = 0
    stopping_at: int | None = None  # a kill is in progress since (epoch ms); None otherwise
    log_note: str | None = None  # why output was lost ("disk full"), for the log pane
    restart_of: str | None = None  # the job this one restarted (JSON restartOf)
    env_names: tuple[str, ...] = ()  # names of the extra environment, never its values
    term_cols: int | None = None  # a terminal job's size now (JSON cols/rows): a view
    term_rows: int | None = None  # opened later replays its output at the size it had
    remaining_processes: int = 0  # a finished job's processes still running (its leftovers)
    cgroup: str | None = None  # the job's own cgroup (v2), where the kernel let us make one
    # A declared job's, from its shim's `phase` events (shim/declared.py): None otherwise.
    declared_name: str | None = None  # its name in the declaration (JSON name)
    phase: str | None = None  # waiting, starting, ready, not-ready, restarting, ended
    waiting_for: str | None = None  # the dependencies it waits for, by name, ", "-joined
    restarts: int | None = None  # restarts its shim made (the id and log stay the same)
    last_exit: int | None = None  # the exit status the last restart followed
    max_restarts: int | None = None  # its declared limit (None: none, or not declared)
    phase_detail: str | None = None  # the probe's last result, the restart marker, why it ended
    ended_by: EndedBy | None = None  # who or what ended it (JSON endedBy): set at settle
    unknown: dict[str, Any] = field(default_factory=dict)
    # A reader's view only, never written: the command ended, its exit files are not
    # written yet (why: "disk full"); JSON exitNotWritten. See unwritten.py.
    exit_not_written: str | None = None

    @property
    def running(self) -> bool:
        return self.status is JobStatus.RUNNING

    @property
    def stopping(self) -> bool:
        """Running, with a kill under way (TERM sent, the grace not over)."""
        return self.running and self.stopping_at is not None

    @property
    def number(self) -> int:
        return int(self.id[1:])

    def ended_at(self) -> int:
        return int(self.finished_at if self.finished_at is not None else self.started_at)

    def copy(self) -> JobRecord:
        return dataclasses.replace(self, unknown=dict(self.unknown))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.unknown)
        for attr, key, _types, _nullable in _CORE:
            value = getattr(self, attr)
            out[key] = value.value if isinstance(value, JobStatus) else value
        for attr, key, _type in _EXTRA:
            value = getattr(self, attr)
            if value is not None or key not in _SPARSE:
                out[key] = value
        if self.env_names:
            out["envNames"] = list(self.env_names)
        if self.ended_by is not None:
            out["endedBy"] = self.ended_by.to_json()
        if self.exit_not_written:
            out["exitNotWritten"] = self.exit_not_written
        return out

    @classmethod
    def from_json(cls, data: Any) -> JobRecord:
        if not isinstance(data, dict):
            raise RecordError("entry is not an object")
        values: dict[str, Any] = {}
        for attr, key, types, nullable in _CORE:
            if key not in data:
                if key in _OPTIONAL_CORE:
                    values[attr] = None
                    continue
                raise RecordError(f"missing field {key!r}")
            value = data[key]
            if value is None and nullable:
                values[attr] = None
                continue
            if isinstance(value, bool) and bool not in types:
                raise RecordError(f"field {key!r} has the wrong type")
            if not isinstance(value, types):
                raise RecordError(f"field {key!r} has the wrong type")
            if isinstance(value, float) and not math.isfinite(value):
                raise RecordError(f"field {key!r} is not a finite number")
            values[attr] = value
        try:
            values["status"] = JobStatus(values["status"])
        except ValueError as exc:
            raise RecordError(f"field 'status' has an unknown value {values['status']!r}") from exc
        if not is_job_id(values["id"]):
            raise RecordError("field 'id' is not j<n>")
        values["started_at"] = int(values["started_at"])
        if values["finished_at"] is not None:
            values["finished_at"] = int(values["finished_at"])
        record = cls(**values)
        taken = set(_CORE_KEYS)
        for attr, key, kind in _EXTRA:
            value = data.get(key)
            if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
                setattr(record, attr, value)
                taken.add(key)
            elif value is None or key not in _SPARSE:
                taken.add(key)  # null: not set; a field always written: its default wins
        if record.restart_of is not None and not is_job_id(record.restart_of):
            record.restart_of = None
            taken.discard("restartOf")
        size = (record.term_cols or 0, record.term_rows or 0)
        if not (MIN_COLS <= size[0] <= MAX_COLS and MIN_ROWS <= size[1] <= MAX_ROWS):
            record.term_cols = record.term_rows = None  # both or neither, and a sane size
            taken -= {"cols", "rows"}
        record.env_names = _env_names(data.get("envNames"))
        if record.env_names or data.get("envNames") == []:
            taken.add("envNames")
        # endedBy: sparse; a malformed one is kept as it was, like an unknown key.
        record.ended_by = EndedBy.from_json(data.get("endedBy"))
        if record.ended_by is not None or data.get("endedBy", 0) is None:
            taken.add("endedBy")
        # A value of ours that is mistyped or out of range is not trusted (the field keeps
        # its default); one of the keys written only when set is kept as it was, like any
        # key we do not know, so a file's odd value is not lost by our rewriting it.
        record.unknown = {k: v for k, v in data.items() if k not in taken}
        return record


def _env_names(value: Any) -> tuple[str, ...]:
    """`envNames` as read from a file: a list of strings, else nothing (not trusted)."""
    if not isinstance(value, list) or len(value) > MAX_ENV_NAMES:
        return ()
    if not all(isinstance(name, str) and 0 < len(name) <= 256 for name in value):
        return ()
    return tuple(value)


@dataclass(frozen=True)
class JobEvent:
    """What subscribers hear: `job-started`, `job-output` or `job-finished`.

    `record` is the changed record itself (the manager's live one), so a screen updates
    the row that changed instead of re-reading the table; it is not part of `to_json`.
    """

    kind: str
    id: str
    label: str
    status: str
    exit_code: int | None = None
    signal: str | None = None
    last_line: str = ""
    log_bytes: int = 0
    record: JobRecord | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, kind: str, record: JobRecord) -> JobEvent:
        return cls(
            kind,
            record.id,
            record.label,
            record.status.value,
            record.exit_code,
            record.signal,
            record.last_line,
            record.log_bytes,
            record,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.id,
            "label": self.label,
            "status": self.status,
            "exitCode": self.exit_code,
            "signal": self.signal,
        }


MAX_EXIT_CODE = 255
MAX_SIGNAL = 64  # SIGRTMAX on Linux; no platform has more


def valid_exit_status(value: int) -> bool:
    """An exit code (0-255) or a death by a real signal (-1..-64): nothing else is an outcome."""
    return -MAX_SIGNAL <= value <= MAX_EXIT_CODE


def outcome(
    exit_status: int | None, reason: str | None, requested_signal: str | None, signal_name
) -> tuple[JobStatus, int | None, str | None]:
    """(status, exitCode, signal) from a raw exit status and why the job ended.

    `exit_status` is the shim's: the exit code, or -N for death by signal N.
    A job we killed is `killed` even when it trapped the signal and exited.
    A value that is neither (a junk status file) is `unknown`.
    """
    if exit_status is None or not valid_exit_status(exit_status):
        return JobStatus.UNKNOWN, None, None
    if exit_status < 0:
        return JobStatus.KILLED, None, signal_name(-exit_status)
    if reason in (EndReason.KILL, EndReason.DEADLINE, EndReason.OWNER_GONE):
        return JobStatus.KILLED, None, requested_signal or "SIGTERM"
    if exit_status == 0:
        return JobStatus.EXITED, 0, None
    return JobStatus.FAILED, exit_status, None
