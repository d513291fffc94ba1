"""What to do with a running record found on load: pure rules, facts passed in."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .model import JobRecord

LAUNCH_WINDOW_MS = 15_000  # a shim reports ready within this (launch's own timeout)


class Plan(StrEnum):
    KEEP = "keep"  # finished already, nothing to do
    SETTLE = "settle"  # its process is gone: settle from the status file, else unknown
    REATTACH = "reattach"  # alive and ours (or adopted and detached): control it again
    PEER = "peer"  # alive and a live peer session's: show it, leave it alone
    KILL_ORPHAN = "kill-orphan"  # alive, non-detached, and its owner is gone: kill it


@dataclass(frozen=True)
class Facts:
    process_alive: bool  # the job (or its supervisor) is alive with a matching start token
    has_exit: bool  # an exact status file exists
    own: bool  # the record is (now) this session's
    adopted: bool  # it came to this session from a dead one just now


def plan(record: JobRecord, facts: Facts) -> Plan:
    if not record.running:
        return Plan.KEEP
    if facts.has_exit or not facts.process_alive:
        return Plan.SETTLE
    if not facts.own:
        return Plan.PEER
    if facts.adopted and not record.detached:
        return Plan.KILL_ORPHAN
    return Plan.REATTACH


def launching(record: JobRecord, now_ms: int) -> bool:
    """Recorded before its shim reported ready, and still within the launch window."""
    return (
        record.running
        and record.pid is None
        and record.shim_pid is None
        and now_ms - record.started_at < LAUNCH_WINDOW_MS
    )


def claim_base(name: str) -> str:
    """`registry-x.json.adopting-y` -> `registry-x.json`: the file a claim was made on."""
    return name.split(".adopting-", 1)[0]


def claimer(name: str) -> str | None:
    """The session hash that claimed a file for adoption, if `name` is a claim."""
    if ".adopting-" not in name:
        return None
    return name.split(".adopting-", 1)[1]
