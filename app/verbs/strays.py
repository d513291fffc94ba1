"""`jobs-tui strays [--kill PID...]`: processes that escaped the project's jobs (issue 27).

Listing needs no job and changes nothing; `--kill` checks every pid before it sends a
signal (`JobManager.kill_strays`), so one pid that is not a stray (a typo, a job's, the
user's editor) is exit 2 naming it, and nothing is killed. A stray's command line is
what the process says it is: hostile, so sanitized before it reaches the terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jobs_tui.engine.records.format import duration, memory

from ..jsonout import emit_result
from . import human

if TYPE_CHECKING:
    import argparse

    from jobs_tui.engine import JobManager
    from jobs_tui.engine.procs.strays import Stray

COMMAND_CHARS = 80
STRAY = {
    "type": "object",
    "required": ["pid", "ppid", "command", "cwd", "ageS", "cpuS", "cpuPercent", "rss", "ports"],
    "properties": {
        "pid": {"type": "integer", "minimum": 1},
        "ppid": {"type": "integer", "minimum": 0},
        "command": {"type": "string", "description": "Its command line, as it says (raw)."},
        "cwd": {"type": "string"},
        "ageS": {"type": "number", "minimum": 0},
        "cpuS": {"type": "number", "minimum": 0, "description": "CPU seconds over its life."},
        "cpuPercent": {"type": "number", "minimum": 0, "description": "cpuS over its age."},
        "rss": {"type": "integer", "minimum": 0, "description": "Resident memory, bytes."},
        "ports": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["port", "proto"],
                "properties": {
                    "port": {"type": "integer", "minimum": 0},
                    "proto": {"enum": ["tcp", "udp"]},
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}
KILLED = {
    "type": "object",
    "required": ["pid", "command", "processes", "escalated"],
    "properties": {
        "pid": {"type": "integer", "minimum": 1},
        "command": {"type": "string"},
        "processes": {"type": "integer", "minimum": 0},
        "escalated": {"type": "boolean", "description": "SIGKILL followed SIGTERM's grace."},
    },
    "additionalProperties": False,
}
# the fields of `jobs-tui strays --json` beside action/exit/sessionId (outschema.py)
FIELDS: dict[str, Any] = {
    "strays": {"type": "array", "items": STRAY},
    "killed": {"type": "array", "items": KILLED},
}


def ports_text(stray: Stray) -> str:
    return ",".join(f"{p.port}" + ("/udp" if p.proto == "udp" else "") for p in stray.ports)


def table(strays: list[Stray]) -> list[str]:
    """PID, age, CPU, memory, ports, command: one row each; "No strays." when none."""
    if not strays:
        return ["No strays."]
    rows = [("PID", "AGE", "CPU", "MEM", "PORTS", "COMMAND")]
    for s in strays:
        rows.append(
            (
                str(s.pid),
                duration(s.age_s * 1000),
                f"{s.cpu_percent:.1f}%",
                memory(s.rss),
                ports_text(s) or "-",
                human.safe(s.command, COMMAND_CHARS),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return ["  ".join([*(c.ljust(w) for c, w in zip(r, widths, strict=False)), r[5]]) for r in rows]


async def strays(jm: JobManager, args: argparse.Namespace) -> int:
    """List the strays, or with `--kill` kill the trees of those named (exit 0)."""
    if args.kill:
        killed = await jm.kill_strays(args.kill)
        lines = [
            f"killed {k.pid} ({k.processes} process{'es' if k.processes != 1 else ''}"
            f"{', SIGKILL after the grace' if k.escalated else ''}): "
            f"{human.safe(k.command, COMMAND_CHARS)}"
            for k in killed
        ]
        return emit_result(args, {"killed": [k.to_json() for k in killed]}, lines)
    found = await jm.strays()
    return emit_result(args, {"strays": [s.to_json() for s in found]}, table(found))
