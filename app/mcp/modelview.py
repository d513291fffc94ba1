"""What a `job_*` tool's `structuredContent` holds: the fields a model acts on, no more.

Claude Code and Codex hand the model `structuredContent`, not the text, so every field
here is paid for in tokens on every poll. A job is its id, label, status, exit code or
signal, elapsed seconds and last line (and the few facts its outcome line states: why it
was killed, what its tree left running); an action adds its own fields (wait's reason and
match, logs' text and counts, send's bytes, kill's signal and process count). Left out:
start and shim tokens, socket, status and cgroup paths, pids (a model has no use for a
pid: it acts on a job through its id, and signalling a pid behind the supervisor's back
is what the tools exist to prevent; a stray, which no job id names, is the exception:
strayview.py), timestamps in milliseconds, the session id, flags
the model set itself (`detached`, `wake`, `stdin`). The full record stays one read away
as the `jobs://job/{id}` resource. `output_schema(action)` declares exactly this shape.
"""

from __future__ import annotations

import time
from typing import Any

from jobs_tui.engine.records.endedby import SCHEMA as ENDED_BY
from jobs_tui.engine.records.endedby import EndedBy
from jobs_tui.engine.records.sanitize import sanitize_line

from .strayview import MODEL_STRAY, MODEL_STRAY_KILLED, model_stray

LAST_LINE_CHARS = 300  # as the finish notification bounds it
_ENDED_BY = ("deadline", "owner-gone", "shim-gone")  # kill reasons the outcome line names
_DECLARED_ENDS = ("crash-loop", "dependency")  # a declared job's: it is a finish all the same

_STR: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer"}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_BOOL: dict[str, Any] = {"type": "boolean"}

MODEL_JOB: dict[str, Any] = {
    "type": "object",
    "description": "A job as a model acts on it; the full record is the jobs://job/{id} resource.",
    "required": ["id", "label", "status", "elapsed"],
    "properties": {
        "id": {"type": "string", "pattern": "^j[1-9][0-9]*$"},
        "label": _STR,
        "status": {"enum": ["running", "exited", "killed", "failed", "unknown"]},
        "exitCode": {**_INT, "description": "exited or failed: the exit code."},
        "signal": {**_STR, "description": "killed: the signal that ended it."},
        "elapsed": {"type": "number", "minimum": 0, "description": "Seconds it ran (so far)."},
        "lastLine": {**_STR, "description": "Its last output line (absent when none)."},
        "endReason": {
            "enum": [*_ENDED_BY, *_DECLARED_ENDS],
            "description": "Why it was killed, if not by you; crash-loop: it failed again "
            "after maxRestarts restarts; dependency: it never ran (phaseDetail says why).",
        },
        "remainingProcesses": {**_COUNT, "description": "Processes its tree left running."},
        "endedBy": ENDED_BY,
        "exitNotWritten": {**_STR, "description": "Why its exit code is not yet known."},
        "peer": {**_BOOL, "description": "list: another session's job (read-only)."},
        "name": {**_STR, "description": "A declared job's name (an id everywhere)."},
        "phase": {
            "enum": ["waiting", "starting", "ready", "not-ready", "restarting", "ended"],
            "description": "A declared job's: waiting for dependencies, starting (not yet "
            "ready), ready, not-ready (its probe gave up), restarting, ended.",
        },
        "waitingFor": {**_STR, "description": "waiting: the dependencies, by name."},
        "restarts": {**_COUNT, "description": "Restarts so far (same id and log)."},
        "maxRestarts": _COUNT,
        "phaseDetail": {**_STR, "description": "The probe's last result, or why it ended."},
    },
    "additionalProperties": False,
}

# Each action's own fields, beside `job` (or `jobs`), and their schemas.
_LOG_FIELDS: dict[str, Any] = {
    "logs": {**_STR, "description": "Sanitized log text, head and tail kept."},
    "truncated": {**_BOOL, "description": "Earlier output exists that is not shown."},
    "earlierLines": _COUNT,
    "earlierBytes": _COUNT,
    "matches": {**_COUNT, "description": "grep: matching lines in all."},
    "note": _STR,
    "omittedLines": {**_COUNT, "description": "Lines cut from the middle (size limit)."},
    "omittedBytes": {**_COUNT, "description": "Bytes cut from the middle (size limit)."},
    "logFile": {**_STR, "description": "When output was left out: the full log's path."},
}
_MATCH: dict[str, Any] = {
    "type": "object",
    "description": "until: the job and the line that matched.",
    "required": ["line"],
    "properties": {"id": {**_STR, "description": "A wait on ids: which job."}, "line": _STR},
    "additionalProperties": False,
}
_LISTENING: dict[str, Any] = {
    "type": "object",
    "description": "port: the job whose tree listens, and the port.",
    "required": ["port"],
    "properties": {"id": {**_STR, "description": "A wait on ids: which job."}, "port": _INT},
    "additionalProperties": False,
}
ACTION_FIELDS: dict[str, dict[str, Any]] = {
    "start": {},
    "list": {"problems": {"type": "array", "items": _STR}},
    "status": {
        "cpuPercent": {"type": "number", "description": "running: CPU % of one core."},
        "rssBytes": _COUNT,
        "processCount": _COUNT,
        "ports": {"type": "array", "items": {"type": "string"}, "description": "e.g. 5173/tcp"},
    },
    "logs": _LOG_FIELDS,
    "send": {"sent": {**_COUNT, "description": "Bytes written."}, "stdinClosed": _BOOL},
    "kill": {
        "signalled": {**_BOOL, "description": "It had ended: nothing was signalled."},
        "signal": _STR,
        "escalated": {**_BOOL, "description": "SIGKILL followed the grace."},
        "adopted": _BOOL,
        "leftoversKilled": _COUNT,
        "note": _STR,
        "error": _STR,
        "stray": MODEL_STRAY_KILLED,
    },
    "strays": {"strays": {"type": "array", "items": MODEL_STRAY}},
    "wait": {
        "reason": {
            "enum": ["timeout", "cancelled", "port", "none-running", "ready", "not-ready"],
            "description": "Absent when the job finished (its status says so) or matched: "
            "timeout or cancelled (it keeps running: call job_wait again), port (it "
            "listens), none-running (a wait with no id, and no job of yours runs), ready "
            "(the probes passed), not-ready (a probe gave up; the job keeps running).",
        },
        "match": _MATCH,
        "listening": _LISTENING,
    },
    "restart": {"restartOf": {**_STR, "description": "The id the new job replaces."}},
    "clear": {"cleared": _COUNT, "ids": {"type": "array", "items": _STR}},
    "up": {
        "started": {"type": "array", "items": MODEL_JOB, "description": "Started now."},
        "running": {"type": "array", "items": MODEL_JOB, "description": "Already running."},
        "failed": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "error"],
                "properties": {"name": _STR, "error": _STR},
                "additionalProperties": False,
            },
            "description": "Not started, and why.",
        },
        "warnings": {"type": "array", "items": _STR},
    },
    "down": {
        "stopped": {"type": "array", "items": MODEL_JOB, "description": "Stopped, in order."},
        "notRunning": {"type": "array", "items": _STR},
    },
}
_WITH_JOBS = {"list", "wait"}  # `jobs`: list, and a wait on `ids`
_WITH_JOB = {"start", "status", "logs", "send", "kill", "wait", "restart"}


def output_schema(action: str) -> dict[str, Any]:
    """The exact shape of `model_result(action, ...)`: nothing more is ever sent."""
    properties: dict[str, Any] = {}
    if action in _WITH_JOB:
        properties["job"] = MODEL_JOB
    if action in _WITH_JOBS:
        properties["jobs"] = {"type": "array", "items": MODEL_JOB}
    properties.update(ACTION_FIELDS.get(action, {}))
    schema: dict[str, Any] = {
        "type": "object",
        "title": f"job_{action} result",
        "properties": properties,
        "additionalProperties": False,
    }
    if action == "list":
        schema["required"] = ["jobs"]
    elif action == "strays":
        schema["required"] = ["strays"]
    elif action in _WITH_JOB and action not in ("wait", "kill"):  # kill: a job's or a stray's
        schema["required"] = ["job"]
    return schema


def model_job(data: dict[str, Any], now_ms: float, session: str | None = None) -> dict[str, Any]:
    """One registry record as a model reads it (see the module docstring)."""
    status = data.get("status")
    started = data.get("startedAt")
    finished = data.get("finishedAt")
    end = finished if isinstance(finished, int | float) else now_ms
    elapsed = max(0.0, (end - started) / 1000) if isinstance(started, int | float) else 0.0
    out: dict[str, Any] = {
        "id": data.get("id"),
        "label": sanitize_line(str(data.get("label", "")), 400),
        "status": status,
    }
    if status in ("exited", "failed") and isinstance(data.get("exitCode"), int):
        out["exitCode"] = data["exitCode"]
    if status == "killed" and isinstance(data.get("signal"), str):
        out["signal"] = data["signal"]
    out["elapsed"] = round(elapsed, 1)
    last = data.get("lastLine")
    if isinstance(last, str) and (last := sanitize_line(last, LAST_LINE_CHARS)):
        out["lastLine"] = last
    if status == "killed" and data.get("endReason") in _ENDED_BY:
        out["endReason"] = data["endReason"]
    ended = EndedBy.from_json(data.get("endedBy")) if status != "running" else None
    if ended is not None and (ended.by != "self" or ended.signal is not None):
        out["endedBy"] = ended_view(ended)  # a plain exit says itself (exitCode)
    left = data.get("remainingProcesses")
    if status != "running" and isinstance(left, int) and left > 0:
        out["remainingProcesses"] = left
    if isinstance(data.get("exitNotWritten"), str):
        out["exitNotWritten"] = sanitize_line(data["exitNotWritten"], 400)
    if session and data.get("sessionId") not in (None, session):
        out["peer"] = True
    out.update(_declared(data, status))
    return out


def ended_view(ended: EndedBy) -> dict[str, Any]:
    """`endedBy` for a model: who or what (`by`, and a request's door and session, an
    outside sender, `certain`), its strings sanitized; the signal and exit code are the
    job's own fields already."""
    out: dict[str, Any] = {}
    for key, value in ended.to_json().items():
        if key not in ("signal", "exitCode"):
            out[key] = sanitize_line(value, 200) if isinstance(value, str) else value
    return out


def _declared(data: dict[str, Any], status: Any) -> dict[str, Any]:
    """A declared job's phase fields, where it has them (a plain job has none)."""
    if not isinstance(data.get("name"), str):
        return {}
    out: dict[str, Any] = {"name": sanitize_line(data["name"], 64)}
    if status != "running" and data.get("endReason") in _DECLARED_ENDS:
        out["endReason"] = data["endReason"]
    phase = data.get("phase")
    if status == "running" and phase in MODEL_JOB["properties"]["phase"]["enum"]:
        out["phase"] = phase  # once it ended, its status says so
    if phase == "waiting" and isinstance(data.get("waitingFor"), str):
        out["waitingFor"] = sanitize_line(data["waitingFor"], 400)
    for key in ("restarts", "maxRestarts"):
        if isinstance(data.get(key), int) and not isinstance(data[key], bool) and data[key] >= 0:
            out[key] = data[key]
    if out.get("restarts") == 0:
        del out["restarts"]
    # a probe's last result is news while it runs; once it ended, only why it ended
    news = status == "running" or data.get("endReason") in _DECLARED_ENDS
    if news and isinstance(data.get("phaseDetail"), str) and data["phaseDetail"]:
        out["phaseDetail"] = sanitize_line(data["phaseDetail"], 400)
    return out


def _ports(ports: Any) -> list[str]:
    shown = []
    for port in ports if isinstance(ports, list) else []:
        if isinstance(port, dict) and isinstance(port.get("port"), int):
            shown.append(f"{port['port']}/{port.get('proto', 'tcp')}")
    return shown


def _fields(action: str, details: dict[str, Any]) -> dict[str, Any]:
    """The action's own fields, each only where it says something (a model pays per key)."""
    out: dict[str, Any] = {}
    for key in ACTION_FIELDS.get(action, {}):
        value = details.get(key)
        if value is None or value is False or value == [] or value == "":
            continue
        if isinstance(value, str) and key != "logs":  # notes, errors: job output may be in them
            value = sanitize_line(value, 2000)
        elif key == "problems" and isinstance(value, list):
            value = [sanitize_line(str(p), 400) for p in value]
        out[key] = value
    if action == "status":
        if "ports" in out:
            out["ports"] = _ports(out["ports"]) or None
        if not isinstance(out.get("cpuPercent"), int | float):
            out.pop("cpuPercent", None)
        else:
            out["cpuPercent"] = round(out["cpuPercent"], 1)
    if action == "logs":
        if not details.get("truncated") and not details.get("omittedBytes"):
            out.pop("logFile", None)  # everything is here: the path is nothing to act on
        out["logs"] = details.get("logs") if isinstance(details.get("logs"), str) else ""
    if action == "send":
        out["sent"] = details.get("sent", 0)
    if action == "kill":
        if out.get("signal") == (details.get("job") or {}).get("signal"):
            out.pop("signal", None)  # the job says it
        out.pop("processes", None)  # the whole tree is gone: the count is nothing to act on
        if details.get("signalled") is False:
            out["signalled"] = False  # it had ended already: news; true is the usual case
        else:
            out.pop("signalled", None)
    if action == "wait":
        out = _wait_fields(details)
    if action == "strays":
        out["strays"] = [model_stray(s) for s in details.get("strays", []) if isinstance(s, dict)]
    if action == "kill" and isinstance(details.get("stray"), dict):
        killed = details["stray"]
        out["stray"] = {**killed, "command": sanitize_line(str(killed.get("command", "")), 400)}
    if action in ("up", "down"):
        out = _stack_fields(action, details)
    if action == "clear":
        out["cleared"] = details.get("cleared", 0)
        ids = [j.get("id") for j in details.get("jobs", []) if isinstance(j, dict)]
        if ids:
            out["ids"] = ids
    return {key: value for key, value in out.items() if value is not None}


def _wait_fields(details: dict[str, Any]) -> dict[str, Any]:
    """`reason` when the wait ended short of what was asked (timeout, cancelled), on a
    port or with nothing to wait for; a finish is the job's status, a match is `match`
    and a port `listening` (each one's `id` only on a wait on `ids`)."""
    out: dict[str, Any] = {}
    match = details.get("match")
    if isinstance(match, dict) and isinstance(match.get("line"), str):
        found: dict[str, Any] = {"line": sanitize_line(match["line"], 1000)}
        which = match.get("id") or match.get("jobId")
        if "job" not in details and isinstance(which, str):
            found = {"id": which, **found}
        out["match"] = found
    listening = details.get("listening")
    if isinstance(listening, dict) and isinstance(listening.get("port"), int):
        heard: dict[str, Any] = {"port": listening["port"]}
        if "job" not in details and isinstance(listening.get("id"), str):
            heard = {"id": listening["id"], **heard}
        out["listening"] = heard
    if details.get("cancelled"):
        out["reason"] = "cancelled"
    elif details.get("timedOut"):
        out["reason"] = "timeout"
    elif details.get("reason") in ("port", "none-running", "ready", "not-ready"):
        out["reason"] = details["reason"]
    return out


def _said(text: Any) -> str:
    return sanitize_line(str(text), 400)


def _stack_fields(action: str, details: dict[str, Any]) -> dict[str, Any]:
    """up's jobs started, running and failed; down's stopped and not running: each job as
    a model reads one, every list only where it has something."""
    now = time.time() * 1000
    out: dict[str, Any] = {}
    if action == "up":
        for key in ("started", "running"):
            jobs = [model_job(j, now) for j in details.get(key) or [] if isinstance(j, dict)]
            if jobs:
                out[key] = jobs
        failed = [
            {
                "name": sanitize_line(str(f.get("name")), 64),
                "error": sanitize_line(str(f.get("error")), 400),
            }
            for f in details.get("failed") or []
            if isinstance(f, dict)
        ]
        if failed:
            out["failed"] = failed
    else:
        stopped = [s.get("job") for s in details.get("stopped") or [] if isinstance(s, dict)]
        jobs = [model_job(j, now) for j in stopped if isinstance(j, dict)]
        if jobs:
            out["stopped"] = jobs
        names = [sanitize_line(str(n), 64) for n in details.get("notRunning") or []]
        if names:
            out["notRunning"] = names
    warnings = [sanitize_line(str(t), 400) for t in details.get("warnings") or []]
    if warnings and action == "up":
        out["warnings"] = warnings
    return out


def model_result(action: str, details: dict[str, Any]) -> dict[str, Any]:
    """A `job_<action>` tool's structuredContent, from the adapter's (shaped) details."""
    now = time.time() * 1000
    session = details.get("sessionId") if isinstance(details.get("sessionId"), str) else None
    out: dict[str, Any] = {}
    if isinstance(details.get("job"), dict) and action in _WITH_JOB:
        out["job"] = model_job(details["job"], now, session)
    if isinstance(details.get("jobs"), list) and action in _WITH_JOBS:
        jobs = [j for j in details["jobs"] if isinstance(j, dict)]
        out["jobs"] = [model_job(j, now, session) for j in jobs]
    out.update(_fields(action, details))
    return out
