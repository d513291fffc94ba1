"""The MCP tools are computed from the published `job` schema: no second copy to drift."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import jsonschema

from jobs_tui.app.mcp.tooltable import action_slice, job_actions, job_tools, tool_table
from jobs_tui.engine import job_tool_schema
from jobs_tui.engine.calls.callschema import MAX_WAIT_MS
from jobs_tui.engine.calls.toolschemas import exec_command_schemas, process_schemas

# Sample values, good and bad, for every field the job schema has (or may gain).
SAMPLES: dict[str, list[Any]] = {
    "command": ["make test", "", "  "],
    "cwd": ["/", ""],
    "label": ["tests", "x" * 200],
    "wake": [True, "yes"],
    "detached": [False],
    "stdin": [True],
    "id": ["j1", "x1", "j0"],
    "ids": [["j1", "j2"], [], ["nope"]],
    "mode": ["any", "some"],
    "until": ["ready on :[0-9]+", ""],
    "fromStart": [True],
    "grep": ["error", ""],
    "context": [2, 99],
    "since": ["5m", "yesterday"],
    "timestamps": [True],
    "lines": [5, 0, 5000],
    "input": ["y", "a\ud800"],
    "newline": [False],
    "eof": [True, False],
    "signal": ["SIGKILL", "SIGHUP"],
    "timeoutMs": [0, 1000, MAX_WAIT_MS + 1, 86_400_001],
    "all": [True],
    "env": [{"CI": "1"}, {"1BAD": "x"}],
}


def _valid(schema: dict[str, Any], value: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


def _corpus(schema: dict[str, Any]) -> list[dict[str, Any]]:
    fields = [name for name in schema["properties"] if name != "action" and name in SAMPLES]
    calls: list[dict[str, Any]] = [{}]
    for name in fields:
        calls += [{name: value} for value in SAMPLES[name]]
    for first, second in itertools.combinations(fields, 2):
        calls.append({first: SAMPLES[first][0], second: SAMPLES[second][0]})
    return calls


def test_each_action_slice_accepts_exactly_what_the_job_schema_accepts_for_that_action():
    schema = job_tool_schema()
    checked = 0
    for action in job_actions(schema):
        sliced = action_slice(schema, action)
        assert "action" not in sliced["properties"]
        for call in _corpus(schema):
            whole = _valid(schema, {"action": action, **call})
            assert _valid(sliced, call) == whole, (action, call)
            checked += whole
    assert checked > 20  # the corpus holds valid calls of every kind, not only refusals


def test_slices_keep_each_actions_own_fields_limits_and_rules():
    schema = job_tool_schema()
    start = action_slice(schema, "start")
    assert start["required"] == ["command"]
    assert "id" not in start["properties"] and "command" in start["properties"]
    wait = action_slice(schema, "wait")
    assert set(wait["properties"]) >= {"id", "timeoutMs"}
    assert not _valid(wait, {"id": "j1", "timeoutMs": MAX_WAIT_MS + 1})
    assert _valid(wait, {"id": "j1", "timeoutMs": MAX_WAIT_MS})
    send = action_slice(schema, "send")
    assert not _valid(send, {"id": "j1"})  # input is required unless eof is true
    assert _valid(send, {"id": "j1", "eof": True})
    assert set(action_slice(schema, "list")["properties"]) == {"all"}


def test_an_action_or_field_the_engine_adds_appears_without_an_edit(monkeypatch):
    schema = copy.deepcopy(job_tool_schema())
    schema["properties"]["action"]["enum"].append("restart")
    schema["properties"]["until"] = {"type": "string", "minLength": 1}
    every = [name for name in schema["properties"] if name not in ("action", "id")]
    schema["allOf"].append(
        {
            "if": {"properties": {"action": {"const": "restart"}}, "required": ["action"]},
            "then": {"required": ["id"], "properties": {name: False for name in every}},
        }
    )
    for rule in schema["allOf"]:  # until: only for wait
        action = rule["if"]["properties"]["action"]["const"]
        if action not in ("wait", "restart"):
            rule["then"].setdefault("properties", {})["until"] = False
    monkeypatch.setattr("jobs_tui.app.mcp.tooltable.job_tool_schema", lambda: schema)
    tools = {tool.name: tool for tool in job_tools()}
    assert "job_restart" in tools
    restart = tools["job_restart"].input_schema
    assert set(restart["properties"]) == {"id"} and restart["required"] == ["id"]
    assert "until" in tools["job_wait"].input_schema["properties"]
    assert "until" not in tools["job_start"].input_schema["properties"]
    assert "new job id" in tools["job_restart"].description


def test_every_tool_has_an_object_input_and_output_schema_and_a_description():
    for vocabulary in ("job", "exec_command", "process"):
        for tool in tool_table(vocabulary).values():
            assert tool.input_schema["type"] == "object"
            assert tool.output_schema["type"] == "object"
            jsonschema.Draft202012Validator.check_schema(tool.input_schema)
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            assert "Output is sanitized" in tool.description
    assert set(tool_table("exec_command")) == set(exec_command_schemas())
    assert set(tool_table("process")) == set(process_schemas())
    assert set(tool_table("job")) == {f"job_{a}" for a in job_actions()}
