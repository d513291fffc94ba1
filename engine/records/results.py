"""What the manager answers with: its errors and its result records."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import JobRecord

TYPE_CHECKING = False  # not `typing`: short command-line calls load this module
if TYPE_CHECKING:
    from typing import Any


class JobError(Exception):
    """A request the manager refuses; `field` names the offending call field, if any."""

    code = "error"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class UnknownJob(JobError):
    code = "unknown-id"


class Refused(JobError):
    code = "refused"


class InvalidArgument(JobError):
    """An argument of a typed call that breaks a rule of the schemas: nothing was done."""

    code = "invalid"


@dataclass
class KillResult:
    job: JobRecord
    signalled: bool
    signal: str
    leftovers: int = 0
    adopted: bool = False
    note: str | None = None  # what happened besides the kill (already finished, leftovers)
    escalated: bool = False  # SIGKILL followed the signal because the tree outlived the grace
    processes: int = 0  # processes of the tree the kill reached


@dataclass
class LogsResult:
    job: JobRecord
    text: str
    lines: list[str]
    truncated: bool
    earlier_bytes: int
    earlier_lines: int | None
    log_file: str
    note: str | None = None
    position: int | None = None  # absolute offset where the tail ends: follow on from here
    # raw bytes of a last line without its newline yet; it is `lines[-1]` (maybe ""), and a
    # follower re-reads it from `position` minus this, so what follows joins it
    partial_bytes: int = 0
    rotated_bytes: int = 0  # output rotated away before the retained segments (in earlier_bytes)
    # absolute offset of the oldest byte the log still holds (a follower that was before it
    # lost the bytes in between: they rotated away unread)
    retained_from: int | None = None
    # with timestamps: the wall-clock ms each of `lines` was written (None where unknown)
    times: list[int | None] = field(default_factory=list)

    def details(self, text: str | None = None) -> dict[str, Any]:
        """The tail as the `job` tool's `logs` details (and `logs --json`) carry it: the
        text (or `text`, e.g. with times), and what came before it."""
        details: dict[str, Any] = {
            "job": self.job.to_json(),
            "logs": self.text if text is None else text,
            "truncated": self.truncated,
        }
        if self.truncated:
            details["earlierBytes"] = self.earlier_bytes
            if self.earlier_lines is not None:
                details["earlierLines"] = self.earlier_lines
        if self.note:
            details["note"] = self.note
        return details


@dataclass
class LogPage:
    """Lines `offset`.. of the retained log (`JobManager.page`)."""

    job: JobRecord
    text: str
    lines: list[str]
    offset: int  # the line number (from 0) of `lines[0]` in the retained log
    total_lines: int  # lines the retained log holds
    log_file: str

    @property
    def truncated(self) -> bool:
        """Lines come before this page."""
        return self.offset > 0


@dataclass
class ReadSince:
    """Output from an absolute byte offset: for unread cursors that survive rotation."""

    text: str  # sanitized
    offset: int  # where the next read should start
    skipped: int  # bytes that rotated away before they were read
    end: int  # absolute end of the log when read
