"""An input schema as the agents people use accept it: the cross-field rules said, not coded.

The published schemas (`job_tool_schema()` and the vocabularies') keep every rule, and the
server validates each call against them once (engine/calls/schemacheck.py), so a call that
breaks one gets that validator's error naming the field. What a client is served is a
projection of them, because clients refuse or mangle what JSON Schema allows (issue 23):
the Anthropic API refuses a tool whose input schema has a top-level `allOf`/`anyOf`/
`oneOf` (Claude Code then drops the tool), and Codex rewrites `const` into a one-value
`enum` typed `string` whatever the value is. So the served schema has no cross-field
keyword at its top level and no `const` anywhere; each rule it drops is added, in words,
to the descriptions of the fields it constrains. Looser, never stricter: every call the
full rules accept is one the served schema accepts.
"""

from __future__ import annotations

import copy
from typing import Any

# Keywords that relate fields to each other: the server keeps them, clients are not given them.
CROSS_FIELD = (
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
)


def client_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` without its top-level cross-field rules (said in field descriptions instead)
    and with every `const` written as a typed one-value `enum`."""
    served = {k: copy.deepcopy(v) for k, v in schema.items() if k not in CROSS_FIELD}
    properties: dict[str, Any] = served.setdefault("properties", {})
    notes = _Notes()
    for rule in schema.get("allOf", []):
        _say(rule, properties, notes)
    for word in ("anyOf", "oneOf", "not"):
        if word in schema:
            _say({word: schema[word]}, properties, notes)
    for name, needs in schema.get("dependentRequired", {}).items():
        notes.add(name, f"Only with {_either(needs, 'and')}.", probe=f"with {_either(needs)}")
    for name, said in notes.sentences().items():
        field = properties.get(name)
        if not isinstance(field, dict):
            continue
        old = field.get("description", "")
        added = [text for text, probe in said if probe is None or probe.lower() not in old.lower()]
        if added:
            field["description"] = " ".join([old, *added]).strip()
    _typed_constants(served)
    return served


class _Notes:
    """What to add to each field's description, each with the phrase that, already there,
    makes it redundant; `not with` and per-value clauses are merged into one sentence."""

    def __init__(self) -> None:
        self.plain: dict[str, list[tuple[str, str | None]]] = {}
        self.excluded: dict[str, list[str]] = {}
        self.per_value: dict[str, list[str]] = {}

    def add(self, name: str, text: str, probe: str | None = None) -> None:
        entry: tuple[str, str | None] = (text, probe if probe is not None else text.rstrip("."))
        if entry not in self.plain.setdefault(name, []):
            self.plain[name].append(entry)

    def sentences(self) -> dict[str, list[tuple[str, str | None]]]:
        said = {name: list(entries) for name, entries in self.plain.items()}
        for name, others in self.excluded.items():
            if others:
                others = list(dict.fromkeys(others))
                said.setdefault(name, []).append((f"Not with {_either(others)}.", None))
        for name, clauses in self.per_value.items():
            said.setdefault(name, []).append((f"Fields per {name}: {'; '.join(clauses)}.", None))
        return said


def _either(names: list[str], word: str = "or") -> str:
    names = [str(n) for n in names]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {word} {names[-1]}"


def _required_sets(options: list[Any]) -> list[list[str]]:
    return [o.get("required", []) for o in options if isinstance(o, dict)]


def _say(rule: Any, properties: dict[str, Any], notes: _Notes) -> None:
    """Put one dropped rule into words on the fields it names."""
    if not isinstance(rule, dict):
        return
    keyed = _keyed(rule)
    if keyed is not None:
        _say_per_value(rule, keyed, properties, notes)
        return
    described = rule.get("description")
    for word in ("anyOf", "oneOf"):
        sets = _required_sets(rule.get(word, []))
        named = [n for group in sets for n in group]
        if not named:
            continue
        text = described or f"One of {_either([' and '.join(g) for g in sets])} is required."
        for name in dict.fromkeys(named):
            notes.add(name, _sentence(text))
    both = rule.get("not", {}).get("required") if isinstance(rule.get("not"), dict) else None
    if isinstance(both, list) and len(both) > 1:
        for name in both:
            others = [
                n for n in both if n != name and f"not with {n}" not in _said(properties, name)
            ]
            notes.excluded.setdefault(name, []).extend(others)
    for inner in rule.get("allOf", []):
        _say(inner, properties, notes)


def _said(properties: dict[str, Any], name: str) -> str:
    field = properties.get(name)
    return str(field.get("description", "")).lower() if isinstance(field, dict) else ""


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."


def _keyed(rule: dict[str, Any]) -> tuple[str, Any] | None:
    """(field, value) of a rule `if field is value then ...`, else None."""
    cond = rule.get("if")
    if not isinstance(cond, dict):
        return None
    props = cond.get("properties", {})
    if len(props) != 1:
        return None
    ((name, spec),) = props.items()
    if isinstance(spec, dict) and "const" in spec:
        return name, spec["const"]
    return None


def _say_per_value(
    rule: dict[str, Any],
    keyed: tuple[str, Any],
    properties: dict[str, Any],
    notes: _Notes,
) -> None:
    """`action: write` takes sessionId (required), data, eof; data is required unless ...:
    said once on the key field, one clause per value."""
    key, value = keyed
    then = rule.get("then", {}) if isinstance(rule.get("then"), dict) else {}
    barred = {n for n, spec in then.get("properties", {}).items() if spec is False}
    required = then.get("required", [])
    fields = [n for n in properties if n != key and n not in barred]
    shown = [f"{n} (required)" if n in required else n for n in fields]
    clause = f"{value}: {', '.join(shown) if shown else 'no other field'}"
    extra = [
        inner.get("description")
        for inner in then.get("allOf", [])
        if isinstance(inner, dict) and inner.get("description")
    ]
    if extra:
        clause += f" ({'; '.join(extra)})"
    notes.per_value.setdefault(key, []).append(clause)


# Where a schema holds subschemas: one, a list of them, or a map of names to them.
_ONE = ("items", "additionalProperties", "propertyNames", "contains", "not", "if", "then", "else")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def _typed_constants(node: Any) -> None:
    """`{"const": v}` → `{"type": <v's type>, "enum": [v]}` in every subschema (walked by
    keyword, so a property that happens to be named `const` is left alone)."""
    if not isinstance(node, dict):
        return
    if "const" in node:
        value = node.pop("const")
        node.setdefault("type", json_type(value))
        node["enum"] = [value]
    for word in _ONE:
        _typed_constants(node.get(word))
    for word in _MANY:
        for sub in node.get(word) or []:
            _typed_constants(sub)
    for word in _MAP:
        for sub in (node.get(word) or {}).values():
            _typed_constants(sub)


def json_type(value: Any) -> str:
    """The JSON Schema type of a JSON value (`true` is a boolean, not an integer)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return "array" if isinstance(value, list) else "object"
