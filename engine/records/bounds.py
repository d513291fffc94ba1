"""The ranges numbers read from registry files must lie in (anything else is not trusted)."""

from __future__ import annotations

import math

from .ids import MAX_JOB_NUMBER

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from typing import Any

PID_MAX = 1 << 22  # Linux's PID_MAX_LIMIT; other systems stay below it
MAX_COUNTER = MAX_JOB_NUMBER + 1  # the next free suffix after the last possible id
MAX_TIME_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z
MAX_BYTES = (1 << 63) - 1
MAX_CODE = (1 << 31) - 1
MAX_DURATION_MS = 10**12  # ~31 years: any timeout we could honour

# JSON key -> (low, high), for the numeric fields of a JobRecord (core and extra).
RECORD_NUMBERS: dict[str, tuple[int, int]] = {
    "pid": (2, PID_MAX),
    "shimPid": (2, PID_MAX),
    "exitCode": (-MAX_CODE - 1, MAX_CODE),
    "exitStatus": (-MAX_CODE - 1, MAX_CODE),
    "startedAt": (0, MAX_TIME_MS),
    "finishedAt": (0, MAX_TIME_MS),
    "stoppingAt": (0, MAX_TIME_MS),
    "timeoutMs": (0, MAX_DURATION_MS),
    "logBytes": (0, MAX_BYTES),
    "logLostBytes": (0, MAX_BYTES),
}


def in_range(value: Any, low: int, high: int) -> bool:
    """A number (not a bool), finite, within [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return low <= value <= high


_CHECKS = tuple((key, low, high) for key, (low, high) in RECORD_NUMBERS.items())


def out_of_range(entry: dict[str, Any]) -> str | None:
    """The first numeric field of a record entry outside its range, if any (NaN included)."""
    for key, low, high in _CHECKS:
        value = entry.get(key)
        kind = value.__class__
        if (kind is int or kind is float) and not low <= value <= high:
            return key  # a NaN fails every comparison: out of range too
    return None
