"""JSON Schemas of the command line's `--json` output: one per verb, and the error shape.

`jobs-tui schema cli` prints them. Results and errors share `action`, `exit` (the
status the call exits with) and `sessionId` (always the session); `job` / `jobs`
hold registry-format JobRecords (extra fields of ours allowed, as the format says).
"""

from __future__ import annotations

from typing import Any

from jobs_tui.engine.records.endedby import SCHEMA as ENDED_BY

from .strays import FIELDS as STRAY_FIELDS

DRAFT = "https://json-schema.org/draft/2020-12/schema"
ERROR_CODES = ("usage", "unknown-id", "refused", "error", "interrupted")

_STR: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer"}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_BOOL: dict[str, Any] = {"type": "boolean"}
_NUM: dict[str, Any] = {"type": "number"}


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


USAGE: dict[str, Any] = {  # a running job's, in `list --json` and `status --json`
    "cpuPercent": {
        **_or_null(_NUM),
        "description": "CPU % of one core used by the job's tree over the last 100 ms.",
    },
    "rssBytes": _COUNT,
    "processCount": _COUNT,
    "ports": {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["port", "proto"],
            "properties": {"port": _COUNT, "proto": {"enum": ["tcp", "udp"]}},
            "additionalProperties": False,
        },
    },
}
JOB_RECORD: dict[str, Any] = {
    "type": "object",
    "description": "A registry-format JobRecord (registry-format.md), with our extra fields.",
    "required": [
        "id",
        "label",
        "command",
        "cwd",
        "pid",
        "status",
        "exitCode",
        "signal",
        "startedAt",
        "finishedAt",
        "logPath",
        "detached",
        "wake",
        "sessionId",
        "seen",
        "lastLine",
        "statusPath",
        "startToken",
    ],
    "properties": {
        "id": {"type": "string", "pattern": "^j[1-9][0-9]*$"},
        "label": _STR,
        "command": _STR,
        "cwd": _STR,
        "pid": _or_null(_INT),
        "status": {"enum": ["running", "exited", "killed", "failed", "unknown"]},
        "exitCode": _or_null(_INT),
        "signal": _or_null(_STR),
        "startedAt": _NUM,
        "finishedAt": _or_null(_NUM),
        "logPath": _STR,
        "detached": _BOOL,
        "wake": _BOOL,
        "sessionId": _STR,
        "seen": _BOOL,
        "lastLine": _STR,
        "statusPath": _or_null(_STR),
        "startToken": _or_null(_STR),
        "restartOf": _or_null(_STR),
        "envNames": {"type": "array", "items": _STR},
        "cols": _INT,
        "rows": _INT,
        "exitNotWritten": {
            "type": "string",
            "description": "list/status only: the command ended, its exit code is not yet "
            "written (why: 'disk full'); status and exitCode are its shim's answer, or "
            "unknown/null when it did not answer",
        },
        "remainingProcesses": {
            **_COUNT,
            "description": "A finished job's processes that still run (a daemon it left); "
            "`kill` kills them, `clear` refuses the record while any remain unless --all.",
        },
        "cgroup": {
            **_STR,
            "description": "The job's own cgroup (v2) directory, where one could be made.",
        },
        "endedBy": ENDED_BY,
        **USAGE,
    },
    "additionalProperties": True,
}
SUPERVISION: dict[str, Any] = {
    "type": "object",
    "required": ["state", "stopReason", "deadlineUtc", "quietMs", "logBytes", "logTruncated"],
    "properties": {
        "state": _STR,
        "stopReason": _or_null(_STR),
        "deadlineUtc": _or_null(_STR),
        "quietMs": _COUNT,
        "logBytes": _COUNT,
        "logTruncated": _BOOL,
        "cleanup": _or_null(_STR),
    },
    "additionalProperties": False,
}


def _result(
    action: str | list[str],
    fields: dict[str, Any],
    required: list[str],
    *,
    exit_null: bool = False,
    text: str = "",
) -> dict[str, Any]:
    exit_schema: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": 255}
    action_schema: dict[str, Any] = (
        {"const": action} if isinstance(action, str) else {"enum": list(action)}
    )
    return {
        "$schema": DRAFT,
        "title": f"jobs-tui {action if isinstance(action, str) else action[0].split()[0]} --json",
        "description": text,
        "type": "object",
        "required": ["action", "exit", "sessionId", *required],
        "properties": {
            "action": action_schema,
            "exit": _or_null(exit_schema) if exit_null else exit_schema,
            "sessionId": _STR,
            **fields,
        },
        "additionalProperties": False,
    }


_OUTPUT = {
    "job": JOB_RECORD,
    "output": {"type": "string", "description": "Sanitized output this session had not read."},
    "running": _BOOL,
    "outputTruncated": _BOOL,
    "unreadBytes": _COUNT,
    "outputSkippedBytes": {
        "type": "integer",
        "minimum": 0,
        "description": "Bytes rotated out of the log unread; the output may start mid-line.",
    },
    "failure": _STR,
    "note": _STR,
    "supervision": SUPERVISION,
}


def cli_schemas() -> dict[str, dict[str, Any]]:
    """{verb: schema of its `--json` result, ..., "error": schema of every verb's error}."""
    jobs = {"type": "array", "items": JOB_RECORD}
    return {
        "start": _result("start", {"job": JOB_RECORD}, ["job"], text="The job as started."),
        "list": _result(
            "list",
            {
                "jobs": jobs,
                "all": _BOOL,
                "pruned": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "This session's older finished jobs dropped by max_jobs.",
                },
                "maxJobs": _COUNT,
                "problems": {"type": "array", "items": _STR},
            },
            ["jobs", "all", "pruned", "problems"],
        ),
        "status": _result("status", {"job": JOB_RECORD}, ["job"]),
        "logs": _result(
            "logs",
            {
                "job": JOB_RECORD,
                "logs": _STR,
                "truncated": _BOOL,
                "earlierLines": _COUNT,
                "earlierBytes": _COUNT,
                "offset": _COUNT,
                "totalLines": _or_null(_COUNT),
                "note": _STR,
                "following": {
                    "type": "boolean",
                    "description": "logs --follow: true on every line but the last, "
                    "whose exit is the call's; the others' exit is null.",
                },
                "skipped": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "logs --follow: bytes of output that rotated away "
                    "before they were read, just before this line's `logs` (absent: none). "
                    "The `logs` of all lines plus every `skipped` is all the job wrote.",
                },
                "times": {
                    "type": "array",
                    "items": _or_null(_INT),
                    "description": "--timestamps: wall ms each line was written (null: unknown).",
                },
                "grep": _STR,
                "rendered": {
                    "type": "boolean",
                    "description": "A terminal job's output as its terminal shows it: rows "
                    "of its emulated screen (scrollback, then the screen), not its bytes.",
                },
                "raw": {
                    "type": "boolean",
                    "description": "--raw: the bytes as written, escapes and all (decoded "
                    "as UTF-8, an invalid byte as U+FFFD).",
                },
                "lines": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["offset", "text", "match", "atMs"],
                        "properties": {
                            "offset": _COUNT,
                            "text": _STR,
                            "match": _BOOL,
                            "atMs": _or_null(_INT),
                        },
                        "additionalProperties": False,
                    },
                },
                "matches": _COUNT,
                "cut": _COUNT,
            },
            ["job"],
            exit_null=True,
        ),
        "send": _result(
            "send", {"job": JOB_RECORD, "sent": _COUNT, "stdinClosed": _BOOL}, ["job", "sent"]
        ),
        "kill": _result(
            "kill",
            {
                "job": JOB_RECORD,
                "signalled": _BOOL,
                "signal": _STR,
                "adopted": _BOOL,
                "escalated": _BOOL,
                "processes": _COUNT,
                "leftoversKilled": _COUNT,
                "note": _STR,
            },
            ["job", "signalled", "signal"],
        ),
        "strays": _result(
            "strays",
            STRAY_FIELDS,
            [],
            text="strays: the project's escaped processes (no --kill); killed: with --kill.",
        ),
        "clear": _result("clear", {"jobs": jobs, "cleared": _COUNT}, ["jobs", "cleared"]),
        "wait": _result(
            "wait",
            {
                "job": JOB_RECORD,
                "jobs": jobs,
                "reason": {"enum": ["match", "port", "ready", "not-ready", "finished", "timeout"]},
                "match": {
                    "type": "object",
                    "required": ["jobId", "line", "offset"],
                    "properties": {"jobId": _STR, "line": _STR, "offset": _COUNT},
                    "additionalProperties": False,
                },
                "listening": {
                    "type": "object",
                    "required": ["jobId", "port"],
                    "properties": {"jobId": _STR, "port": {"type": "integer"}},
                    "additionalProperties": False,
                },
                "timedOut": _BOOL,
                "cancelled": _BOOL,
            },
            ["job", "timedOut"],
            text="`job`: the job the outcome is about (matched, listening, first to end, first "
            "failed). exit: 0 on a --until match, a --port listening or --ready; 1 --ready "
            "but not ready (or ended unready); 124 timed out; else "
            "one job's code (128+N after signal N, 125 not recorded); --any: the first to "
            "end's; several: 0 if all succeeded, else the first failing code in the order "
            "asked.",
        ),
        "restart": _result(
            "restart",
            {"job": JOB_RECORD, "restartOf": _STR},
            ["job", "restartOf"],
            text="`job`: the new job (running); `restartOf`: the id it replaced.",
        ),
        "up": _result(
            "up",
            {
                "started": jobs,
                "running": jobs,
                "failed": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name", "error"],
                        "properties": {"name": _STR, "error": _STR},
                        "additionalProperties": False,
                    },
                },
            },
            ["started", "running", "failed"],
            text="up --detach: the declared jobs started now, those already running, and "
            "those not started (with why); exit 1 if any was not.",
        ),
        "down": _result(
            "down",
            {
                "stopped": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["job", "signal", "escalated"],
                        "properties": {
                            "job": JOB_RECORD,
                            "signal": _or_null(_STR),
                            "escalated": _BOOL,
                            "note": _STR,
                        },
                        "additionalProperties": False,
                    },
                },
                "notRunning": {"type": "array", "items": _STR},
            },
            ["stopped", "notRunning"],
            text="stopped: each job in the order stopped (dependents first); notRunning: "
            "the declared names that had no running job.",
        ),
        "exec": _result(
            "exec",
            _OUTPUT,
            ["job", "output", "running", "supervision"],
            text="exit: the command's code (128+N), or 124 while it is still running.",
        ),
        "poll": _result("poll", _OUTPUT, ["job", "output", "running", "supervision"]),
        "config": _result(
            ["config init", "config show", "config check", "config import"],
            {
                "path": _STR,
                "source": _or_null(_STR),
                "config": {"type": "object"},
                "registryDir": _STR,
                "projectRoot": _STR,
                "warnings": {"type": "array", "items": _STR},
                "format": {
                    "enum": ["jobs-tui.toml", "process-compose.yaml", "mprocs.yaml", "Procfile"]
                },
                "levels": {"type": "array", "items": {"type": "array", "items": _STR}},
                "jobs": {
                    "type": "array",
                    "items": {"type": "object", "required": ["name", "command", "dependsOn"]},
                    "description": "check: each declared job as its supervisor reads it "
                    "(engine/declared/model.py, DeclaredJob.to_spec).",
                },
                "imported": {"type": "array", "items": _STR},
            },
            [],
            text="check: where the declared jobs were read from, the start order as levels "
            "and each job; import: the jobs-tui.toml written (path) and what was left out.",
        ),
        "schema": _result(
            "schema", {"name": _or_null(_STR), "schemas": {"type": "object"}}, ["schemas"]
        ),
        "setup": _result(
            "setup",
            {
                "client": {"enum": ["claude", "codex", "gemini", "opencode", "cursor"]},
                "scope": {"enum": ["project", "user"]},
                "project": _STR,
                "command": {"type": "array", "items": _STR},
                "files": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["path", "change", "items"],
                        "properties": {
                            "path": _STR,
                            "change": {
                                "enum": ["wrote", "unchanged", "removed", "deleted", "nothing"]
                            },
                            "items": {"type": "array", "items": _STR},
                            "left": {"type": "array", "items": _STR},
                        },
                        "additionalProperties": False,
                    },
                },
                "notes": {"type": "array", "items": _STR},
                "changed": _BOOL,
            },
            ["client", "scope", "project", "command", "files", "notes", "changed"],
            text="files: what happened to each config file; left: ours, changed since setup.",
        ),
        "error": {
            "$schema": DRAFT,
            "title": "jobs-tui error --json",
            "description": "Any verb's failure; `field` names the flag or word as typed.",
            "type": "object",
            "required": ["action", "exit", "sessionId", "error", "field", "code"],
            "properties": {
                "action": _or_null(_STR),
                "exit": {"type": "integer", "minimum": 1, "maximum": 255},
                "sessionId": _or_null(_STR),
                "error": _STR,
                "field": _or_null(_STR),
                "code": {"enum": list(ERROR_CODES)},
                "job": JOB_RECORD,
                "usage": _STR,
                "errors": {
                    "type": "array",
                    "items": _STR,
                    "description": "config check/import: every error of the file, one each.",
                },
                "warnings": {"type": "array", "items": _STR},
            },
            "additionalProperties": False,
        },
    }
