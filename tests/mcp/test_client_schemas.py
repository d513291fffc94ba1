"""Every input schema served over MCP is one the agents people use accept as it is.

Two models of what real clients do with a tool's `inputSchema` (issue 23):
- the Anthropic API (Claude Code) refuses a tool whose input schema has `allOf`, `anyOf`
  or `oneOf` at its top level, and Claude Code then drops the tool; we also hold the top
  level to `type: object` and no other cross-field keyword (`not`, `if`/`then`/`else`,
  `dependentRequired`, `dependentSchemas`), which a client may drop or refuse alike;
- Codex rewrites each schema node for the OpenAI API: `const` becomes a one-value `enum`
  and a node without `type` gets one guessed (`string` for an `enum`), so
  `{"const": true}` became `{"type": "string", "enum": [true]}`, a contradiction. So: no
  `const` anywhere, and every `enum` has a declared `type` all its values are of.

The cross-field rules these schemas no longer carry stay enforced by the server's one
validator against the full published schema: the last test calls over MCP and gets its
error naming the field.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from jobs_tui.app.mcp.clientschema import json_type
from jobs_tui.app.mcp.tooltable import VOCABULARIES, action_slice, job_actions, tool_table
from jobs_tui.engine import job_tool_schema

from .conftest import serve
from .test_tooltable import SAMPLES

ANTHROPIC_TOP_LEVEL_REFUSED = ("allOf", "anyOf", "oneOf")
CROSS_FIELD = (*ANTHROPIC_TOP_LEVEL_REFUSED, "not", "if", "then", "else", "const")
CROSS_FIELD += ("dependentRequired", "dependentSchemas", "enum")

# keywords whose value is one subschema, or a list / a map of them
_ONE = ("items", "additionalProperties", "propertyNames", "not", "if", "then", "else")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def _nodes(schema: Any, where: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema of `schema` with a path to it, the way a client walks it."""
    if not isinstance(schema, dict):
        return
    yield where, schema
    for word in _ONE:
        yield from _nodes(schema.get(word), f"{where}.{word}")
    for word in _MANY:
        for i, sub in enumerate(schema.get(word) or []):
            yield from _nodes(sub, f"{where}.{word}[{i}]")
    for word in _MAP:
        for name, sub in (schema.get(word) or {}).items():
            yield from _nodes(sub, f"{where}.{word}.{name}")


def anthropic_problems(schema: dict[str, Any]) -> list[str]:
    problems = [f"top-level {word}" for word in CROSS_FIELD if word in schema]
    if schema.get("type") != "object":
        problems.append(f"top-level type is {schema.get('type')!r}, not 'object'")
    return problems


def codex_problems(schema: dict[str, Any]) -> list[str]:
    """What Codex's rewrite would turn into a schema that contradicts itself."""
    problems = []
    for where, node in _nodes(schema):
        if "const" in node:
            problems.append(f"{where}: const {node['const']!r} (Codex makes it a typed enum)")
        if "enum" not in node:
            continue
        declared = node.get("type")
        kinds = {json_type(v) for v in node["enum"]}
        if not isinstance(declared, str):
            problems.append(f"{where}: enum without one declared type (Codex guesses string)")
        elif not (kinds == {declared} or (declared == "number" and kinds <= {"integer", "number"})):
            problems.append(f"{where}: enum of {sorted(kinds)} declared {declared!r}")
    return problems


def _served() -> list[Any]:
    return [
        pytest.param(vocabulary, name, tool.input_schema, id=name)
        for vocabulary in VOCABULARIES
        for name, tool in tool_table(vocabulary).items()
    ]


def test_the_models_catch_what_the_clients_were_seen_to_refuse():
    """The checks can fail: the schemas Claude Code dropped and Codex rewrote fail them."""
    full = job_tool_schema()
    assert "top-level allOf" in anthropic_problems(action_slice(full, "wait"))
    assert any("const True" in p for p in codex_problems(action_slice(full, "send")))
    assert codex_problems({"type": "object", "properties": {"x": {"enum": ["a", 1]}}})
    assert codex_problems({"properties": {"x": {"type": "string", "enum": [True]}}})
    assert not codex_problems({"properties": {"x": {"type": "string", "enum": ["a", "b"]}}})


@pytest.mark.parametrize(("vocabulary", "name", "schema"), _served())
def test_every_served_input_schema_passes_the_anthropic_rule_and_codexs_rewrite(
    vocabulary: str, name: str, schema: dict[str, Any]
):
    assert anthropic_problems(schema) == [], (vocabulary, name)
    assert codex_problems(schema) == [], (vocabulary, name)
    jsonschema.Draft202012Validator.check_schema(schema)


def _corpus(fields: list[str]) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = [{}]
    calls += [{f: v} for f in fields for v in SAMPLES[f]]
    for first, second in itertools.combinations(fields, 2):
        calls += [{first: a, second: b} for a in SAMPLES[first] for b in SAMPLES[second][:1]]
    return calls


def test_a_served_schema_refuses_nothing_the_full_rules_accept_and_says_the_rules_it_dropped():
    """Looser, never stricter: a call the engine takes is one a client lets through."""
    full = job_tool_schema()
    tools = tool_table("job")
    loosened = 0
    for action in job_actions(full):
        exact = action_slice(full, action)
        served = tools[f"job_{action}"].input_schema
        assert set(served["properties"]) == set(exact["properties"])
        assert served["required"] == exact["required"]
        fields = [f for f in served["properties"] if f in SAMPLES]
        for call in _corpus(fields):
            strict = jsonschema.Draft202012Validator(exact).is_valid(call)
            loose = jsonschema.Draft202012Validator(served).is_valid(call)
            assert loose or not strict, (action, call)
            loosened += loose and not strict
    assert loosened > 3  # the cross-field rules were really dropped from the served slices
    wait = tools["job_wait"].input_schema["properties"]
    assert "ids" in wait["id"]["description"] and "id" in wait["ids"]["description"]
    assert "until" in wait["fromStart"]["description"]
    send = tools["job_send"].input_schema["properties"]
    assert "eof" in send["input"]["description"]
    logs = tools["job_logs"].input_schema["properties"]
    assert "grep" in logs["context"]["description"]
    process = tool_table("process")["process"].input_schema["properties"]
    assert "send-keys" in process["action"]["description"]


async def test_a_call_breaking_a_dropped_rule_gets_the_validators_error_naming_the_field(
    project: tuple[str, str],
):
    cwd, registry = project
    async with serve(cwd, registry) as s:
        listed = {t.name: t for t in (await s.session.list_tools()).tools}
        for tool in listed.values():
            assert anthropic_problems(tool.input_schema) == [], tool.name
            assert codex_problems(tool.input_schema) == [], tool.name
        refused = {
            "id cannot be combined with ids": await s.call("job_wait", id="j1", ids=["j1"]),
            "input is required unless eof is true": await s.call("job_send", id="j1"),
            "context and grep go together": await s.call("job_logs", id="j1", context=2),
            "fromStart and until go together": await s.call("job_wait", id="j1", fromStart=True),
        }
        for message, result in refused.items():
            assert result.is_error and message in s.text(result), (message, s.text(result))
        assert (await s.ok("job_list"))["jobs"] == []  # nothing was started or touched
    async with serve(cwd, registry, "--tools", "process") as s:
        bad = await s.call("process", action="send-keys", sessionId="j1")
        assert bad.is_error and "send-keys needs keys, hex or literal" in s.text(bad)
        stray = await s.call("process", action="list", sessionId="j1")
        assert stray.is_error and "sessionId does not apply" in s.text(stray), s.text(stray)


def test_a_const_anywhere_is_served_as_a_typed_one_value_enum_and_rules_become_words():
    """A field or rule the engine adds later is served the same way, with no edit here."""
    from jobs_tui.app.mcp.clientschema import client_schema

    schema = {
        "type": "object",
        "properties": {
            "const": {"type": "string", "description": "A field named const."},
            "mode": {"const": "fast"},
            "flags": {"type": "array", "items": {"anyOf": [{"const": 3}, {"const": 4}]}},
            "a": {"type": "string"},
            "b": {"type": "string"},
        },
        "required": [],
        "additionalProperties": False,
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
        "not": {"required": ["a", "b"]},
        "dependentRequired": {"flags": ["mode"]},
    }
    served = client_schema(schema)
    assert anthropic_problems(served) == [] and codex_problems(served) == []
    props = served["properties"]
    assert props["const"] == schema["properties"]["const"]
    assert props["mode"] == {"type": "string", "enum": ["fast"]}
    assert props["flags"]["items"]["anyOf"][0] == {"type": "integer", "enum": [3]}
    assert "One of a or b is required." in props["a"]["description"]
    assert "Not with b." in props["a"]["description"]
    assert "Only with mode." in props["flags"]["description"]
    for call in ({"a": "x"}, {"b": "y"}, {"mode": "fast", "flags": [3]}):
        if jsonschema.Draft202012Validator(schema).is_valid(call):
            assert jsonschema.Draft202012Validator(served).is_valid(call)
