"""The published JSON Schema (draft 2020-12) of `jobs-tui.toml`: `jobs-tui schema config`.

Built from the key table (`keys.py`) the validator holds a file to, so an editor that
checks the file against it (Taplo, Even Better TOML: `#:schema` or a catalog) and
`jobs-tui config check` agree on every key, type and range. What a schema cannot say
is checked by `config check` only: a dependency on a job the file does not declare,
a cycle, `"ready"` on a job without a probe, a `log` that is not a regular expression.
"""

from __future__ import annotations

from typing import Any

from jobs_tui.engine.calls.callschema import MAX_COMMAND

from .keys import (
    ENV_NAME,
    JOB_ID,
    JOB_KEYS,
    MAX_ENV,
    MAX_ENV_VALUE,
    MAX_JOBS,
    MAX_PATH,
    MAX_TEXT,
    NAME,
    PROBE_KEYS,
    PROBE_KINDS_KEYS,
    URL,
    Key,
)
from .model import CONDITIONS

DRAFT = "https://json-schema.org/draft/2020-12/schema"
_NOT_BLANK = r"\S"
_NAME_SCHEMA: dict[str, Any] = {"type": "string", "pattern": NAME, "not": {"pattern": JOB_ID}}


def _key_schema(key: Key) -> dict[str, Any]:
    out: dict[str, Any]
    if key.kind in ("command", "path", "text", "regex", "url"):
        limit = {"command": MAX_COMMAND, "text": MAX_TEXT}.get(key.kind, MAX_PATH)
        out = {"type": "string", "minLength": 1, "maxLength": limit, "pattern": _NOT_BLANK}
        if key.kind == "url":
            out["allOf"] = [{"pattern": URL}]
        if key.kind == "text":
            out["allOf"] = [{"not": {"pattern": "[\\r\\n]"}}]
    elif key.kind == "int":
        out = {"type": "integer", "minimum": key.low, "maximum": key.high}
    elif key.kind == "bool":
        out = {"type": "boolean"}
    elif key.kind == "enum":
        out = {"enum": list(key.choices)}
    elif key.kind == "env":
        out = {
            "type": "object",
            "maxProperties": MAX_ENV,
            "propertyNames": {"pattern": ENV_NAME},
            "additionalProperties": {"type": "string", "maxLength": MAX_ENV_VALUE},
        }
    elif key.kind == "depends":
        out = {
            "type": "object",
            "propertyNames": _NAME_SCHEMA,
            "additionalProperties": {"enum": list(CONDITIONS)},
        }
    else:  # probe
        out = {
            "type": "object",
            "properties": {k: _key_schema(v) for k, v in PROBE_KEYS.items()},
            "additionalProperties": False,
            "oneOf": [{"required": [kind]} for kind in PROBE_KINDS_KEYS],
        }
    out["description"] = key.text
    if key.default not in (None, {}, []):
        out["default"] = key.default
    return out


def config_schema() -> dict[str, Any]:
    """The schema of a whole `jobs-tui.toml` (a fresh dict: callers may change it)."""
    job = {
        "type": "object",
        "description": "One declared job: [jobs.NAME].",
        "required": ["command"],
        "properties": {name: _key_schema(key) for name, key in JOB_KEYS.items()},
        "additionalProperties": False,
    }
    return {
        "$schema": DRAFT,
        "title": "jobs-tui.toml",
        "description": "The jobs a project declares: jobs-tui up starts them in order, keeps "
        "them alive, and tells agents when they are ready or crash-loop.",
        "type": "object",
        "required": ["jobs"],
        "properties": {
            "jobs": {
                "type": "object",
                "minProperties": 1,
                "maxProperties": MAX_JOBS,
                "propertyNames": _NAME_SCHEMA,
                "additionalProperties": job,
            }
        },
        "additionalProperties": False,
    }
