"""The MCP tools, derived from the published schemas: one tool per `job` action, or a vocabulary.

No second copy of any schema: a `job_<action>` tool's input schema is computed from
`job_tool_schema()` (the action's own fields, its limits and cross-field rules, the fields
it does not take left out), so a field or an action the engine adds (`restart`, `until`,
`env`, ...) appears here with no edit. `--tools exec_command` / `--tools process` serve
those vocabularies' own schemas. Either is served as `client_schema` projects it: no
top-level cross-field rule and no `const` (clients refuse or mangle those), the rules said
in the field descriptions; the server still validates every call against the full schema.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from jobs_tui.engine import job_tool_schema
from jobs_tui.engine.calls.toolschemas import exec_command_schemas, process_schemas

from .clientschema import client_schema
from .modelview import output_schema
from .wording import WAIT_DESCRIPTION, WAKE, start_description

VOCABULARIES = ("job", "exec_command", "process")

SANITIZED = "Output is sanitized (escapes stripped, \\r progress bars collapsed) and bounded."

# One or two sentences a model reads to pick a tool; an action the engine adds later gets
# the generic line below until it is given one here.
JOB_DESCRIPTIONS: dict[str, str] = {
    "start": start_description(False),  # with --channel: start_description(True)
    "list": "List this session's jobs and other sessions' running ones, with status, exit "
    "code and last output line.",
    "status": "One job's details: status, exit code, duration, last line, and CPU, memory "
    "and listening ports while it runs.",
    "logs": "Read a job's output: a bounded tail (lines), or only matching lines (grep, "
    "with context) or lines since a time. " + SANITIZED,
    "send": "Write text to a job's stdin (started with stdin: true); eof closes it.",
    "kill": "Stop a job's whole process tree (TERM, then KILL after a grace); returns once "
    "every process is gone. With pid instead of id: a stray's tree (see job_strays).",
    "strays": "List processes that escaped the jobs: this user's, working inside the "
    "project, orphaned (no terminal, parent init), in no job's tree, such as a dev server "
    "left behind; with pid, command, age, CPU, memory and listening ports.",
    "wait": WAIT_DESCRIPTION,
    "restart": "Kill the job if it runs, then start the same command (cwd, label, env, "
    "stdin, deadline) as a new job id, which the result names.",
    "clear": "Remove finished jobs of this session (one id, or all); all: true also kills "
    "and removes running ones.",
    "up": "Start the project's declared jobs (jobs-tui.toml, process-compose.yaml, mprocs.yaml "
    "or Procfile): those with autostart, or the named ones and what they need, each once its "
    "dependencies are started, ready or succeeded. Returns once each is started; their "
    "names work as ids. Then job_wait with ready: true.",
    "down": "Stop the project's declared jobs (or the named ones and what depends on them), "
    "dependents first, each with its declared stop signal; they are not restarted.",
}


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: its name, text for the model, schemas, and how a call reaches the engine."""

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    vocabulary: str  # job | exec_command | process
    target: str  # the job action, or the vocabulary's own tool name


def _is_rule_for(rule: Any, key: str, value: str) -> bool:
    cond = rule.get("if") if isinstance(rule, dict) else None
    if not isinstance(cond, dict):
        return False
    prop = cond.get("properties", {}).get(key)
    return isinstance(prop, dict) and prop.get("const") == value


def _keyed_on(rule: Any, key: str) -> bool:
    cond = rule.get("if") if isinstance(rule, dict) else None
    return isinstance(cond, dict) and key in cond.get("properties", {})


def _narrow(base: Any, narrowed: dict[str, Any]) -> dict[str, Any]:
    """A field's base spec with an action's narrowing (its own limits) applied on top."""
    spec = copy.deepcopy(base) if isinstance(base, dict) else {}
    for key, value in narrowed.items():
        if key in spec and key in ("allOf", "anyOf"):
            spec[key] = [*spec[key], *value]
        elif key in spec and key not in ("description",) and spec[key] != value:
            spec.setdefault("allOf", []).append({key: value})
        else:
            spec[key] = copy.deepcopy(value)
    return spec


def action_slice(schema: dict[str, Any], action: str, key: str = "action") -> dict[str, Any]:
    """The input schema of one action of a multi-action tool: its fields, limits and rules.

    Fields the action's rule sets to `false` are left out, fields it narrows get its
    limits, its `required` and cross-field keywords are kept; rules keyed on other
    actions are dropped and rules keyed on nothing are kept as they are.
    """
    properties = {k: copy.deepcopy(v) for k, v in schema["properties"].items() if k != key}
    required: list[str] = [r for r in schema.get("required", []) if r != key]
    rules: dict[str, Any] = {}
    kept: list[Any] = []
    for rule in schema.get("allOf", []):
        if _is_rule_for(rule, key, action):
            then = rule.get("then", {})
            for name, spec in then.get("properties", {}).items():
                if spec is False:
                    properties.pop(name, None)
                elif isinstance(spec, dict) and name in properties:
                    properties[name] = _narrow(properties[name], spec)
            required += [r for r in then.get("required", []) if r not in required]
            for word, value in then.items():
                if word in ("properties", "required"):
                    continue
                if word == "allOf":
                    kept += copy.deepcopy(value)
                else:
                    rules[word] = copy.deepcopy(value)
        elif not _keyed_on(rule, key):
            kept.append(copy.deepcopy(rule))
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if "$schema" in schema:
        result = {"$schema": schema["$schema"], **result}
    result["required"] = required
    result["additionalProperties"] = False
    result.update(rules)
    if kept:
        result["allOf"] = kept
    return result


def job_actions(schema: dict[str, Any] | None = None) -> list[str]:
    schema = schema if schema is not None else job_tool_schema()
    return list(schema["properties"]["action"]["enum"])


def job_output_schema(action: str) -> dict[str, Any]:
    """What `job_<action>` returns as structuredContent: exactly modelview's shape."""
    return output_schema(action)


def _vocabulary_output(name: str, kind: str) -> dict[str, Any]:
    return {
        "type": "object",
        "title": f"{name} result",
        "description": f"The {kind} vocabulary's JSON result, as its adapter returns it.",
        "additionalProperties": True,
    }


def job_tools(channel: bool = False) -> list[ToolSpec]:
    """One tool per action; `channel`: the server runs with --channel (wording.py)."""
    schema = job_tool_schema()
    tools = []
    for action in job_actions(schema):
        text = JOB_DESCRIPTIONS.get(action, f"The job tool's {action} action.")
        if action == "start":
            text = start_description(channel)
        text = text if SANITIZED in text else f"{text} {SANITIZED}"
        input_schema = client_schema(action_slice(schema, action))
        input_schema["title"] = f"job_{action}"
        wake = input_schema["properties"].get("wake")
        if isinstance(wake, dict):  # what `wake` does for an agent over MCP: the hooks'
            wake["description"] = WAKE
        tools.append(
            ToolSpec(f"job_{action}", text, input_schema, job_output_schema(action), "job", action)
        )
    return tools


def _vocabulary_tools(schemas: dict[str, dict[str, Any]], vocabulary: str) -> list[ToolSpec]:
    tools = []
    for name, schema in schemas.items():
        text = f"{schema.get('description', name)} {SANITIZED}"
        served = client_schema(schema)
        tools.append(
            ToolSpec(name, text, served, _vocabulary_output(name, vocabulary), vocabulary, name)
        )
    return tools


def tool_table(vocabulary: str = "job", channel: bool = False) -> dict[str, ToolSpec]:
    """{tool name: ToolSpec} of the vocabulary the server serves (`channel`: --channel)."""
    if vocabulary == "job":
        tools = job_tools(channel)
    elif vocabulary == "exec_command":
        tools = _vocabulary_tools(exec_command_schemas(), vocabulary)
    elif vocabulary == "process":
        tools = _vocabulary_tools(process_schemas(), vocabulary)
    else:
        raise ValueError(f"unknown vocabulary {vocabulary!r}; one of {', '.join(VOCABULARIES)}")
    return {tool.name: tool for tool in tools}
