"""Checking a call against its JSON Schema: pure, before any side effect, naming the field.

The published schemas are the only definition of what a call may say: hosts register
them and this checker holds every call to them, so the two cannot drift. It reads the
subset of JSON Schema 2020-12 the schemas use (type, enum, const, minimum/maximum and
the exclusive forms, minLength/maxLength, pattern, items/minItems/maxItems, properties,
required, additionalProperties, propertyNames, min/maxProperties, dependentRequired,
allOf, anyOf, not, if/then/else, boolean schemas) and stops at the first problem.

A null field counts as omitted (hosts that send every optional field as null); the
schema describes the call without its null fields. Messages quote at most `QUOTE_LIMIT`
characters of what the caller sent and never format a huge number whole.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

QUOTE_LIMIT = 80

_TYPE_NAMES = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


class ToolInputError(ValueError):
    """A call that cannot be run; `field` names the offending field."""

    code = "invalid"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


# -- quoting what the caller sent ----------------------------------------------------------


def clip(text: str, limit: int = QUOTE_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """`value` for a message: strings repr'd and cut at `limit` characters, numbers bounded."""
    if isinstance(value, str):
        return repr(clip(value, limit))
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int | float):
        return show_number(value)
    return clip(repr(value) if not isinstance(value, list | dict) else _short(value), limit)


def _short(value: list | dict) -> str:
    kind = "a list" if isinstance(value, list) else "an object"
    return f"{kind} of {len(value)}"


def show_number(value: float) -> str:
    """A number as a message may show it: huge ones as their size, never 5,000 digits."""
    if isinstance(value, float):
        return repr(value)  # 1e+308, inf, nan: short by nature
    if abs(value) < 10**18:
        return str(value)
    digits = int(value.bit_length() * math.log10(2)) + 1
    return f"{'-' if value < 0 else ''}(a number of about {digits} digits)"


# -- what a failed pattern means -------------------------------------------------------------

Explain = Callable[[str, str], str]  # (name, value) -> the message
_EXPLAIN: dict[str, Explain] = {}


def explain(pattern: str) -> Callable[[Explain], Explain]:
    """Register what a failed `pattern` tells the caller; the module defining it does."""

    def register(fn: Explain) -> Explain:
        _EXPLAIN[pattern] = fn
        return fn

    return register


# -- the checker -------------------------------------------------------------------------------


# Which problem a call hears of first: an unknown field, then a field its action does not
# take, then a missing one, then a field's own value, then rules across fields.
UNKNOWN, NOT_APPLICABLE, MISSING, VALUE, ACROSS = range(5)


@dataclass(frozen=True)
class Problem:
    message: str
    field: str | None
    rank: int = VALUE


class _At:
    """Where the checker is: what a message calls the value, and which call field it is."""

    __slots__ = ("cond", "field", "name", "tool")

    def __init__(
        self, tool: str, name: str = "", field: str | None = None, cond: str | None = None
    ) -> None:
        self.tool = tool
        self.name = name  # "keys[1]", "env.PATH"
        self.field = field  # the call's field it belongs to
        self.cond = cond  # "action 'start'" inside the rules for that action

    @property
    def scope(self) -> str:
        return f" for {self.cond}" if self.cond else ""

    def renamed(self, name: str) -> _At:
        return _At(self.tool, name, self.field, self.cond)

    def within(self, cond: str | None) -> _At:
        return _At(self.tool, self.name, self.field, cond)


def check(schema: dict[str, Any], args: Any, tool: str) -> dict[str, Any]:
    """The call's fields, typed (integral floats become ints); null counts as omitted.

    Raises ToolInputError naming the field of the first problem.
    """
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ToolInputError(f"{tool} takes an object of named fields", None)
    call = {k if isinstance(k, str) else str(k): v for k, v in args.items() if v is not None}
    problem = first_problem(schema, call, tool)
    if problem is not None:
        raise ToolInputError(problem.message, problem.field)
    props = schema.get("properties", {})
    return {k: _typed(props.get(k, True), v) for k, v in call.items()}


def first_problem(schema: Any, call: dict[str, Any], tool: str) -> Problem | None:
    """The most telling problem (by rank, then in the order the schema reads)."""
    return min(_problems(schema, call, _At(tool)), key=lambda p: p.rank, default=None)


def _valid(schema: Any, value: Any, at: _At) -> bool:
    return next(_problems(schema, value, at), None) is None


def _typed(spec: Any, value: Any) -> Any:
    if not isinstance(spec, dict):
        return value
    kinds = spec.get("type", ())
    if isinstance(value, float) and "integer" in kinds and value.is_integer():
        return int(value)  # bounded: every integer field has a maximum
    if isinstance(value, list) and "items" in spec:
        return [_typed(spec["items"], item) for item in value]
    return value


def _problems(schema: Any, value: Any, at: _At) -> Iterator[Problem]:
    if schema is True:
        return
    if schema is False:
        what = f"does not apply to {at.cond}" if at.cond else "is not allowed here"
        yield Problem(f"{at.name} {what}", at.field, NOT_APPLICABLE)
        return
    if "type" in schema and not _is_type(schema["type"], value):
        kinds = [schema["type"]] if isinstance(schema["type"], str) else schema["type"]
        wanted = " or ".join(_TYPE_NAMES.get(k, k) for k in kinds)
        yield Problem(f"{at.name} must be {wanted}, not {_json_type(value)}", at.field)
        return
    yield from _value_problems(schema, value, at)
    if isinstance(value, dict) and not _OBJECT_KEYWORDS.isdisjoint(schema):
        yield from _object_problems(schema, value, at)
    if not _COMBINING_KEYWORDS.isdisjoint(schema):
        yield from _combined(schema, value, at)


_OBJECT_KEYWORDS = frozenset(
    {
        "properties",
        "required",
        "additionalProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "dependentRequired",
    }
)
_COMBINING_KEYWORDS = frozenset({"allOf", "anyOf", "not", "if"})


def _value_problems(schema: dict[str, Any], value: Any, at: _At) -> Iterator[Problem]:
    if "const" in schema and not _same(value, schema["const"]):
        yield Problem(f"{at.name} must be {quote(schema['const'])}{at.scope}", at.field)
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        options = ", ".join(str(o) for o in schema["enum"])
        yield Problem(f"{at.name} {quote(value)} is not one of {options}", at.field)
    if _is_number(value):
        yield from _range(schema, value, at)
    elif isinstance(value, str):
        yield from _length(schema, len(value), "characters", "minLength", "maxLength", at)
        if "pattern" in schema and not re.search(schema["pattern"], value):
            yield Problem(_pattern_message(schema["pattern"], at.name, value), at.field)
    elif isinstance(value, list):
        yield from _length(schema, len(value), "items", "minItems", "maxItems", at)
        items = schema.get("items", True)
        for i, item in enumerate(value):
            yield from _problems(items, item, at.renamed(f"{at.name}[{i}]"))


def _object_problems(schema: dict[str, Any], value: dict[str, Any], at: _At) -> Iterator[Problem]:
    props: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    if extra is False:
        for key in value:
            if key not in props:
                where = f"for {at.tool}" if at.field is None else f"in {at.name}"
                yield Problem(f"unknown field {quote(key)} {where}", _field(at, key), UNKNOWN)
    for key in schema.get("required", []):
        if key not in value:
            message = _required_message(key, props.get(key), at)
            yield Problem(message, _field(at, key), MISSING)
    for key, spec in props.items():
        if key in value:
            yield from _problems(spec, value[key], _child(at, key))
    names = schema.get("propertyNames", True)
    if names is not True or extra not in (True, False):
        for key, item in value.items():
            yield from _problems(names, key, at.renamed(f"{at.name} name"))
            if key not in props and extra is not False:
                yield from _problems(extra, item, _child(at, key))
    yield from _length(schema, len(value), "entries", "minProperties", "maxProperties", at)
    for key, needed in schema.get("dependentRequired", {}).items():
        if key in value:
            for other in needed:
                if other not in value:
                    message = f"{key} and {other} go together; {other} is missing"
                    yield Problem(message, _field(at, other), ACROSS)


def _combined(schema: dict[str, Any], value: Any, at: _At) -> Iterator[Problem]:
    for sub in schema.get("allOf", []):
        yield from _problems(sub, value, at)
    if "anyOf" in schema and not any(_valid(sub, value, at) for sub in schema["anyOf"]):
        first = schema["anyOf"][0]
        named = first.get("required", []) if isinstance(first, dict) else []
        field = _field(at, named[0]) if named else at.field
        message = schema.get("description") or f"{at.name} matches none of the allowed forms"
        yield Problem(message, field, ACROSS)
    if "not" in schema and _valid(schema["not"], value, at):
        yield _not_problem(schema, value, at)
    if "if" in schema:
        if _holds(schema["if"], value, at):
            cond = _condition(schema["if"]) or at.cond
            yield from _problems(schema.get("then", True), value, at.within(cond))
        else:
            yield from _problems(schema.get("else", True), value, at)


def _not_problem(schema: dict[str, Any], value: Any, at: _At) -> Problem:
    banned = schema["not"]
    names = banned.get("required", []) if isinstance(banned, dict) else []
    if isinstance(value, dict) and len(names) > 1:
        others = ", ".join(names[1:])
        message = f"{names[0]} cannot be combined with {others}"
        return Problem(message, _field(at, names[-1]), ACROSS)
    # A banned pattern says what it bans; else the value's own pattern says what it must be
    # (an id's "no line break" rule reads as "not a job id").
    inner = banned.get("pattern") if isinstance(banned, dict) else None
    for pattern in (inner, schema.get("pattern")):
        if isinstance(value, str) and pattern in _EXPLAIN:
            return Problem(_pattern_message(pattern, at.name, value), at.field)
    return Problem(f"{at.name} {quote(value)} is not allowed{at.scope}", at.field)


def _range(schema: dict[str, Any], value: float, at: _At) -> Iterator[Problem]:
    if isinstance(value, float) and math.isnan(value):
        yield Problem(f"{at.name} must be a number, not NaN", at.field)
        return
    low, high = schema.get("minimum"), schema.get("maximum")
    above, below = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    shown = show_number(value)
    # Both bounds are named when both mean something (not only "no huge number").
    span = f"outside {low}-{high}" if low is not None and high is not None else None
    if low is not None and value < low:
        what = span if high is not None and high < _UNBOUNDED else f"below the minimum {low}"
        yield Problem(f"{at.name} {shown} is {what}{at.scope}", at.field)
    if above is not None and value <= above:
        yield Problem(f"{at.name} {shown} must be more than {above}{at.scope}", at.field)
    if high is not None and value > high:
        yield Problem(
            f"{at.name} {shown} is {span or f'above the maximum {high}'}{at.scope}", at.field
        )
    if below is not None and value >= below:
        yield Problem(f"{at.name} {shown} must be less than {below}{at.scope}", at.field)


_UNBOUNDED = 2**53 - 1  # a maximum that only keeps numbers finite


def _length(
    schema: dict[str, Any], size: int, unit: str, low_key: str, high_key: str, at: _At
) -> Iterator[Problem]:
    low, high = schema.get(low_key), schema.get(high_key)
    if low is not None and size < low:
        what = "must not be empty" if low == 1 else f"needs at least {low} {unit}"
        yield Problem(f"{at.name} {what}{at.scope}", at.field)
    if high is not None and size > high:
        verb = "is" if unit == "characters" else "has"  # "input is 8193 characters"
        yield Problem(f"{at.name} {verb} {size} {unit}; the limit is {high}", at.field)


def _required_message(key: str, spec: Any, at: _At) -> str:
    if at.cond:
        return f"{key} is required for {at.cond}"
    if isinstance(spec, dict) and "enum" in spec:
        return f"{key} is required: one of " + ", ".join(str(o) for o in spec["enum"])
    where = f"for {at.tool}" if at.field is None else f"in {at.name}"
    return f"{key} is required {where}"


def _pattern_message(pattern: str, name: str, value: str) -> str:
    fn = _EXPLAIN.get(pattern)
    if fn is not None:
        return fn(name, value)
    return f"{name} {quote(value)} does not match {pattern}"


def _holds(condition: Any, value: Any, at: _At) -> bool:
    """Whether an `if` holds; `{properties: {K: {const: V}}, required: [K]}` (an action's
    rules) is read directly, being most of what a call's check does."""
    if isinstance(condition, dict) and isinstance(value, dict) and condition.keys() <= _CONST_IF:
        props = condition.get("properties", {})
        if len(props) == 1:
            ((key, spec),) = props.items()
            if isinstance(spec, dict) and spec.keys() == {"const"}:
                if key not in value:
                    return key not in condition.get("required", ())
                return _same(value[key], spec["const"])
    return _valid(condition, value, at)


_CONST_IF = frozenset({"properties", "required"})


def _condition(schema: Any) -> str | None:
    """`if: {properties: {action: {const: "start"}}}` reads as "action 'start'"."""
    if not isinstance(schema, dict):
        return None
    for key, spec in schema.get("properties", {}).items():
        if isinstance(spec, dict) and "const" in spec:
            return f"{key} {quote(spec['const'])}"
    return None


def _field(at: _At, key: str) -> str:
    return clip(key) if at.field is None else at.field


def _child(at: _At, key: str) -> _At:
    if at.field is None:
        name = clip(key)
        return _At(at.tool, name, name, at.cond)
    return at.renamed(f"{at.name}.{clip(key)}")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_type(kinds: str | list[str], value: Any) -> bool:
    return any(_one_type(kind, value) for kind in ([kinds] if isinstance(kinds, str) else kinds))


def _one_type(kind: str, value: Any) -> bool:
    if kind == "integer":
        return _is_number(value) and (isinstance(value, int) or value.is_integer())
    if kind == "number":
        return _is_number(value) and not (isinstance(value, float) and math.isinf(value))
    return isinstance(value, _PYTHON_TYPES[kind]) and not (
        kind != "boolean" and isinstance(value, bool)
    )


_PYTHON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "boolean": bool,
    "array": list,
    "object": dict,
    "null": type(None),
}


def _same(value: Any, expected: Any) -> bool:
    """JSON equality: true is not 1."""
    return value == expected and isinstance(value, bool) == isinstance(expected, bool)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float) and not math.isfinite(value):
        return "infinity" if math.isinf(value) else "NaN"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
