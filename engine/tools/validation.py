"""Checking a tool call against its JSON Schema: pure, before any side effect, naming the field.

The schemas in `schemas.py` are both what hosts register and what calls are checked
against, so the two cannot drift. Only the subset of JSON Schema they use is read.
"""

from __future__ import annotations

import math
import re
from typing import Any

_TYPE_NAMES = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
}


class ToolInputError(ValueError):
    """A call that cannot be run; `field` names the offending field."""

    code = "invalid"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def check(schema: dict[str, Any], args: Any, tool: str) -> dict[str, Any]:
    """The call's fields, typed; null counts as omitted. Raises ToolInputError."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ToolInputError(f"{tool} takes an object of named fields", None)
    props: dict[str, Any] = schema.get("properties", {})
    for key in args:
        if key not in props:
            raise ToolInputError(f"unknown field {key!r} for {tool}", str(key))
    for key in schema.get("required", []):
        if args.get(key) is None:
            raise ToolInputError(f"{key} is required for {tool}", key)
    return {k: _value(k, k, props[k], v) for k, v in args.items() if v is not None}


def _type_ok(kind: str, value: Any) -> Any:
    """`value` converted to `kind`, or a sentinel when it is not one."""
    if kind == "boolean":
        return value if isinstance(value, bool) else _NO
    if isinstance(value, bool):
        return _NO
    if kind == "string":
        return value if isinstance(value, str) else _NO
    if kind == "integer":
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return _NO
    if kind == "number":
        if isinstance(value, int | float) and math.isfinite(value):
            return value
        return _NO
    if kind == "array":
        return value if isinstance(value, list) else _NO
    if kind == "object":
        return value if isinstance(value, dict) else _NO
    return _NO


_NO = object()


def _value(name: str, field: str, spec: dict[str, Any], value: Any) -> Any:
    """`value` checked against `spec`; errors say `name` (what it is) and name `field`."""
    kinds = spec.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        for kind in kinds:
            converted = _type_ok(kind, value)
            if converted is not _NO:
                value = converted
                break
        else:
            wanted = " or ".join(_TYPE_NAMES.get(k, k) for k in kinds)
            raise ToolInputError(f"{name} must be {wanted}, not {_json_type(value)}", field)
    if "enum" in spec and value not in spec["enum"]:
        options = ", ".join(str(o) for o in spec["enum"])
        raise ToolInputError(f"{name} {value!r} is not one of {options}", field)
    if isinstance(value, int | float) and not isinstance(value, bool):
        _check_range(name, field, spec, value)
    if isinstance(value, str):
        _check_length(name, field, spec, len(value), "characters")
        if "pattern" in spec and not re.search(spec["pattern"], value):
            raise ToolInputError(f"{name} {value!r} does not match {spec['pattern']}", field)
    if isinstance(value, list):
        _check_length(name, field, spec, len(value), "items", "minItems", "maxItems")
        items = spec.get("items", {})
        value = [_value(f"{name}[{i}]", field, items, item) for i, item in enumerate(value)]
    if isinstance(value, dict):
        _check_length(name, field, spec, len(value), "entries", "minProperties", "maxProperties")
        keys = spec.get("propertyNames", {})
        values = spec.get("additionalProperties", {})
        out = {}
        for key, item in value.items():
            _value(f"{name} name", field, keys, key)
            out[key] = _value(
                f"{name}.{key}", field, values if isinstance(values, dict) else {}, item
            )
        value = out
    return value


def _check_range(name: str, field: str, spec: dict[str, Any], value: float) -> None:
    low, high = spec.get("minimum"), spec.get("maximum")
    above = spec.get("exclusiveMinimum")
    if low is not None and value < low:
        raise ToolInputError(f"{name} {value} is below the minimum {low}", field)
    if above is not None and value <= above:
        raise ToolInputError(f"{name} {value} must be more than {above}", field)
    if high is not None and value > high:
        raise ToolInputError(f"{name} {value} is above the maximum {high}", field)


def _check_length(
    name: str,
    field: str,
    spec: dict[str, Any],
    size: int,
    unit: str,
    low_key: str = "minLength",
    high_key: str = "maxLength",
) -> None:
    low, high = spec.get(low_key), spec.get(high_key)
    if low is not None and size < low:
        what = "must not be empty" if low == 1 else f"needs at least {low} {unit}"
        raise ToolInputError(f"{name} {what}", field)
    if high is not None and size > high:
        raise ToolInputError(f"{name} has {size} {unit}; the limit is {high}", field)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))
