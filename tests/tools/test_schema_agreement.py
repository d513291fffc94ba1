"""The published JSON Schemas and the engine's validator give every call the same verdict.

A host that validates a call against the schema (here: the `jsonschema` library, draft
2020-12) must get the engine's answer. Calls are generated near the boundaries of every
field and combination of fields. Facts no schema can know are left out of the corpus:
whether a `cwd`/`workdir` exists (only "/" is used), whether a `yield_until` is more than
24 hours ahead or names a day its month lacks (only past times with days up to 28 are
used), and which jobs exist. A null field counts as omitted, in the engine; the schema
describes the call without its null fields.
"""

from __future__ import annotations

import base64
import binascii
import copy
import re
import sys
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobs_tui.engine.tools import all_schemas

SCHEMAS = all_schemas()
TOOLS = [(family, tool) for family, tools in SCHEMAS.items() for tool in tools]
VALIDATORS = {
    tool: jsonschema.Draft202012Validator(schema)
    for tools in SCHEMAS.values()
    for tool, schema in tools.items()
}


def validator(spec: dict[str, Any]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(spec)


def shown(call: Any) -> str:
    """A call for an assertion message (repr of 10**5000 itself raises)."""
    if isinstance(call, int) and not isinstance(call, bool) and abs(call) > 10**100:
        return "<huge int>"
    if isinstance(call, dict):
        return "{" + ", ".join(f"{k!r}: {shown(v)}" for k, v in call.items()) + "}"
    if isinstance(call, list):
        return "[" + ", ".join(shown(v) for v in call) + "]"
    return repr(call)


def schema_ok(family: str, tool: str, call: dict[str, Any]) -> bool:
    # jsonschema formats the instance into its error messages, and str(10**5000) raises
    # under Python's default digit limit: lift the limit for the reference verdict only.
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return VALIDATORS[tool].is_valid(call)
    finally:
        sys.set_int_max_str_digits(limit)


def engine_ok(family: str, tool: str, call: dict[str, Any]) -> bool:
    """The engine's verdict before any side effect (the checks a call runs before it acts)."""
    from jobs_tui.engine.calls.arguments import check_start, resolve_cwd
    from jobs_tui.engine.records.results import InvalidArgument
    from jobs_tui.engine.tools import exec_command, job, process
    from jobs_tui.engine.tools.validation import ToolInputError

    try:
        if family == "job":
            job.validate(call, session_cwd="/")
            return True
        module = exec_command if family == "exec_command" else process
        checked = module.check_call(tool, call)
    except (job.CallError, ToolInputError):
        return False
    if tool in ("exec_command", "exec"):  # what JobManager.start then checks of it
        command = checked["cmd" if tool == "exec_command" else "command"]
        try:
            check_start(command, None, None, None, None, None)
            resolve_cwd(checked.get("workdir"), "/")
        except InvalidArgument:
            return False
    return True


# -- calls the engine refuses and the schemas used to accept (issue 8, item 16) -----------

REFUSED = [
    ("job", "job", {"action": "start"}),
    ("job", "job", {"action": "start", "command": "   "}),
    ("job", "job", {"action": "start", "command": "\t\n"}),
    ("job", "job", {"action": "start", "command": "echo a\x00b"}),
    ("job", "job", {"action": "start", "command": "x", "cwd": "a\x00b"}),
    ("job", "job", {"action": "start", "command": "x", "timeoutMs": 0}),
    ("job", "job", {"action": "start", "command": "x", "label": "x\ud800y"}),
    ("job", "job", {"action": "send", "id": "j1"}),
    ("job", "job", {"action": "send", "id": "j1", "eof": False}),
    ("job", "job", {"action": "wait", "id": "j1", "timeoutMs": 600_001}),
    ("job", "job", {"action": "status"}),
    ("job", "job", {"action": "list", "command": "x"}),
    ("job", "job", {"action": "kill", "id": "j1", "lines": 5}),
    ("job", "job", {"action": "status", "id": "j1\n"}),
    # issue 11: cross-field rules of wait, logs and restart
    ("job", "job", {"action": "wait", "id": "j1", "ids": ["j2"]}),
    # issue 23 D: a port is a TCP port number, of a wait only
    ("job", "job", {"action": "wait", "id": "j1", "port": 0}),
    ("job", "job", {"action": "wait", "id": "j1", "port": 65536}),
    ("job", "job", {"action": "wait", "id": "j1", "port": "80"}),
    ("job", "job", {"action": "status", "id": "j1", "port": 80}),
    ("job", "job", {"action": "wait", "ids": []}),
    ("job", "job", {"action": "wait", "ids": ["j1", "x y"]}),
    ("job", "job", {"action": "wait", "id": "j1", "mode": "some"}),
    ("job", "job", {"action": "wait", "id": "j1", "fromStart": True}),
    ("job", "job", {"action": "logs", "id": "j1", "context": 2}),
    ("job", "job", {"action": "logs", "id": "j1", "grep": "x", "context": 21}),
    ("job", "job", {"action": "logs", "id": "j1", "since": "5 minutes"}),
    ("job", "job", {"action": "logs", "id": "j1", "since": "0s"}),
    ("job", "job", {"action": "restart"}),
    ("job", "job", {"action": "restart", "id": "j1", "signal": "SIGKILL"}),
    ("job", "job", {"action": "start", "command": "x", "env": {"1A": "x"}}),
    ("job", "job", {"action": "status", "id": "j1", "env": {"A": "x"}}),
    ("exec_command", "exec_command", {"cmd": "x", "env": {"A": "a\x00"}}),
    ("exec_command", "exec_command", {"cmd": " "}),
    ("exec_command", "exec_command", {"cmd": "echo \ud800"}),
    ("exec_command", "exec_command", {"cmd": "x", "workdir": "/\x00"}),
    ("exec_command", "exec_command", {"cmd": "x", "yield_time_ms": 1e308}),
    ("exec_command", "write_stdin", {"session_id": 1, "chars": "a", "chars_b64": "YQ=="}),
    ("exec_command", "write_stdin", {"session_id": 1, "cols": 100}),
    ("exec_command", "write_stdin", {"session_id": 1, "rows": 30}),
    ("exec_command", "write_stdin", {"session_id": 1, "chars": "bad \\q"}),
    ("exec_command", "write_stdin", {"session_id": 1, "chars": "\\u12"}),
    ("exec_command", "write_stdin", {"session_id": 1, "chars": "\\400"}),
    ("exec_command", "write_stdin", {"session_id": 1, "chars_b64": "%%%"}),
    ("exec_command", "write_stdin", {"session_id": 1, "chars_b64": "YQ"}),
    ("exec_command", "write_stdin", {"session_id": "x!"}),  # "x" would be a declared name
    ("exec_command", "write_stdin", {"session_id": 0}),
    ("exec_command", "write_stdin", {"session_id": 10**5000}),
    ("exec_command", "write_stdin", {"session_id": "j1\n"}),
    ("exec_command", "write_stdin", {"session_id": 1, "yield_until": "yesterday"}),
    ("exec_command", "write_stdin", {"session_id": 1, "yield_until": "2001-01-01T00:00:00"}),
    (
        "exec_command",
        "write_stdin",
        {"session_id": 1, "yield_until": "2001-01-01T00:00:00Z", "yield_time_ms": 5},
    ),
    (
        "exec_command",
        "write_stdin",
        {"session_id": 1, "yield_until": "2001-01-01T00:00:00Z", "end_stdin": True},
    ),
    ("process", "exec", {"command": "\t"}),
    ("process", "exec", {"command": "x", "env": {"A": "a\x00"}}),
    ("process", "exec", {"command": "x", "env": {"A\n": "a"}}),
    ("process", "process", {"action": "poll"}),
    ("process", "process", {"action": "poll", "sessionId": "no pe"}),
    ("process", "process", {"action": "list", "sessionId": "j1"}),
    ("process", "process", {"action": "poll", "sessionId": "j1", "data": "x"}),
    ("process", "process", {"action": "write", "sessionId": "j1"}),
    ("process", "process", {"action": "write", "sessionId": "j1", "data": ""}),
    ("process", "process", {"action": "send-keys", "sessionId": "j1"}),
    ("process", "process", {"action": "send-keys", "sessionId": "j1", "keys": []}),
    ("process", "process", {"action": "send-keys", "sessionId": "j1", "keys": ["C-Nope"]}),
    ("process", "process", {"action": "send-keys", "sessionId": "j1", "keys": ["C-1"]}),
    ("process", "process", {"action": "send-keys", "sessionId": "j1", "hex": ["zz"]}),
    ("process", "process", {"action": "paste", "sessionId": "j1"}),
    ("process", "process", {"action": "paste", "sessionId": "j1", "text": ""}),
    ("process", "process", {"action": "log", "sessionId": "j1", "limit": 10**5000}),
]

ACCEPTED = [
    ("job", "job", {"action": "start", "command": "x", "label": "x\udcffy"}),
    ("job", "job", {"action": "start", "command": "printf '\udcff'", "cwd": "/"}),
    ("job", "job", {"action": "send", "id": "j1", "eof": True}),
    ("job", "job", {"action": "send", "id": "j1", "input": ""}),
    ("job", "job", {"action": "wait", "id": "j1", "timeoutMs": 600_000}),
    ("job", "job", {"action": "logs", "id": "j1", "lines": 50.0}),
    ("job", "job", {"action": "wait", "ids": ["j1", "j2"], "mode": "any", "until": "ready"}),
    ("job", "job", {"action": "wait", "id": "j1", "until": "x", "fromStart": True}),
    # issue 23 D: neither id nor ids (the next finish), and a port
    ("job", "job", {"action": "wait"}),
    ("job", "job", {"action": "wait", "until": "ready", "port": 8000}),
    ("job", "job", {"action": "wait", "ids": ["j1", "j2"], "port": 65535}),
    ("job", "job", {"action": "logs", "id": "j1", "grep": "E", "context": 20, "since": "5m"}),
    ("job", "job", {"action": "logs", "id": "j1", "since": "2030-01-01T00:00:00Z"}),
    ("job", "job", {"action": "logs", "id": "j1", "timestamps": True}),
    ("job", "job", {"action": "restart", "id": "j1"}),
    ("job", "job", {"action": "start", "command": "x", "env": {"CI": "1"}}),
    ("exec_command", "exec_command", {"cmd": "x", "env": {"CI": "1"}}),
    ("exec_command", "write_stdin", {"session_id": "j1", "cols": 80, "rows": 24}),
    ("exec_command", "write_stdin", {"session_id": 2.0, "chars": "\\x1b[A\\u00e9\\177"}),
    ("exec_command", "write_stdin", {"session_id": "1", "yield_until": "2001-01-01 00:00Z"}),
    ("process", "process", {"action": "send-keys", "sessionId": "1", "keys": ["C-S-Up", "^C"]}),
    ("process", "process", {"action": "send-keys", "sessionId": "j1", "hex": [" 1b ", "0x1b"]}),
    ("process", "process", {"action": "write", "sessionId": "j1", "eof": True}),
]


@pytest.mark.parametrize(("family", "tool", "call"), REFUSED)
def test_the_schemas_refuse_what_the_engine_refuses(family, tool, call):
    assert not schema_ok(family, tool, call), shown(call)
    assert not engine_ok(family, tool, call), shown(call)


@pytest.mark.parametrize(("family", "tool", "call"), ACCEPTED)
def test_the_schemas_accept_what_the_engine_accepts(family, tool, call):
    assert schema_ok(family, tool, call), call
    assert engine_ok(family, tool, call), call


@pytest.mark.parametrize(("family", "tool"), TOOLS)
def test_every_schema_is_a_valid_2020_12_schema(family, tool):
    jsonschema.Draft202012Validator.check_schema(SCHEMAS[family][tool])


# -- a generated corpus near every boundary ----------------------------------------------


def _specs(schema: Any, out: dict[str, list[dict[str, Any]]]) -> None:
    """Every subschema that constrains a top-level property, wherever it sits."""
    if not isinstance(schema, dict):
        return
    for name, spec in schema.get("properties", {}).items():
        if isinstance(spec, dict):
            out.setdefault(name, []).append(spec)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key, []):
            _specs(sub, out)
    for key in ("if", "then", "else", "not"):
        _specs(schema.get(key), out)


def _walk(spec: Any, key: str) -> list[Any]:
    """Every value of `key` in `spec` and the subschemas it combines."""
    found = []
    if isinstance(spec, dict):
        if key in spec:
            found.append(spec[key])
        for sub in spec.get("allOf", []) + spec.get("anyOf", []):
            found += _walk(sub, key)
        if "not" in spec:
            found += _walk(spec["not"], key)
    return found


SPECIAL_STRINGS = [
    "",
    " ",
    "\t",
    "x",
    "x\n",
    "\n",
    "a\x00b",
    "\x00",
    "\ud800",
    "x\udbff",
    "\udc7f",
    "\udc80",
    "a\udcffb",
    "\udd00",
    "\u3000",
    "\x1c",
    "\ufeff",
    "é",
    "j1",
    "1",
]
PATTERN_SAMPLES = {
    "id": ["j1", "j9", "j10", "j0", "j01", "J1", "j", "j1\n", " j1", "j999999999", "j1234567890"],
    "sessionId": ["1", "j1", "j2", "0", "01", "j0", "x", "1\n", "j999999999", "9999999999"],
    "session_id": [1, 2, 0, -1, 999_999_999, 1_000_000_000, 2.0, 1.5, "1", "j1", "x", "j1\n"],
    "chars": [
        "plain",
        "\\n\\r\\t\\e\\\\",
        "\\x1b[A",
        "\\x4g",
        "\\x",
        "\\q",
        "a\\",
        "\\\\q",
        "\\\\\\q",
        "\\u00e9",
        "\\u12",
        "\\ud800",
        "\\U0010FFFF",
        "\\U00110000",
        "\\U0000dc80",
        "\\377",
        "\\400",
        "\\47x",
        "\\477",
        "\\0",
        "\\?\\'\\\"",
        "\udcff",
        "\ud800",
    ],
    "chars_b64": ["", "YQ==", "YWJj", "YQ", "YQ=", "Y===", "YWJj\n", "YR==", "%%%", "YQ==YQ=="],
    "yield_until": [
        "2001-01-01T00:00:00Z",
        "2001-01-01 00:00Z",
        "2001-01-01t00:00:00.123456789+05:30",
        "2001-01-28T23:59:59,5-23:59",
        "2001-01-01T00:00:00",
        "2001-13-01T00:00:00Z",
        "2001-01-01T24:00:00Z",
        "1969-12-31T23:59:59Z",
        "2001-01-01T00:00:00Z\n",
        "yesterday",
        "",
    ],
    "keys": [
        ["Enter"],
        ["C-c", "M-x", "S-Tab", "C-S-Up", "F12", "f1", "^C", "hi"],
        ["C-Nope"],
        ["C-1"],
        ["C-"],
        ["C-\n"],
        ["M-\n"],
        ["M-x\n"],
        ["C-M-"],
        ["S-C-"],
        ["c-s-ß"],
        ["C-f13"],
        ["C-F01"],
        ["PageUp", "pgdn", "BTab"],
        [""],
        ["\ud800"],
        [],
    ],
    "ids": [["j1"], ["j1", "j2"], ["j0"], ["x y"], ["j1\n"], [], [1], "j1"],
    "since": [
        "5m",
        "90s",
        "2h",
        "1d",
        "250ms",
        "0s",
        "5",
        "5 m",
        "5m\n",
        "2001-01-01T00:00:00Z",
        "2001-01-01T00:00:00",
        "2001-01-28 23:59:59.5+05:30",
    ],
    "until": ["ready", "ready on :[0-9]+", "x\n"],
    "hex": [["1b"], ["0x03", " 4f "], ["zz"], ["0x"], ["123"], ["1b\n"], [""], []],
    "env": [
        {"CI": "1"},
        {"A_1": ""},
        {"1BAD": "x"},
        {"A\n": "x"},
        {"A": "a\x00"},
        {"A": 1},
        {"A": "\udcff"},
        {"A": "\ud800"},
        {},
    ],
}
WRONG_TYPES = [True, False, 0, 1, 1.5, "1", [], {}]


def _numbers(specs: list[dict[str, Any]]) -> list[Any]:
    bounds = set()
    for spec in specs:
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            for value in _walk(spec, key):
                bounds.add(value)
    values: list[Any] = [0, 1, -1, 2.0, 0.5, 10**30, -(10**30), 1e308, -1e308, 2**53, 2**53 - 1]
    for bound in bounds:
        values += [bound - 1, bound, bound + 1, float(bound), bound + 0.5, bound - 0.5]
    return values


def _strings(name: str, specs: list[dict[str, Any]]) -> list[Any]:
    values: list[Any] = list(SPECIAL_STRINGS) + PATTERN_SAMPLES.get(name, [])
    for spec in specs:
        for key in ("minLength", "maxLength"):
            for size in _walk(spec, key):
                values += ["x" * max(0, size - 1), "x" * size, "x" * (size + 1)]
        for options in _walk(spec, "enum"):
            for option in options:
                values += [option, option.upper(), option + " ", option[:-1]]
        for const in _walk(spec, "const"):
            values.append(const)
    return values


def _pool(name: str, specs: list[dict[str, Any]]) -> list[Any]:
    kinds: set[str] = set()
    for spec in specs:
        for kind in _walk(spec, "type"):
            kinds.update([kind] if isinstance(kind, str) else kind)
    values: list[Any] = []
    if kinds & {"integer", "number"}:
        values += _numbers(specs)
    if "string" in kinds:
        values += _strings(name, specs)
    if "boolean" in kinds:
        values += [True, False]
    if "array" in kinds:
        values += PATTERN_SAMPLES.get(name, [])
        sizes = [s for spec in specs for s in _walk(spec, "maxItems")]
        for size in sizes:
            values += [["x"] * size, ["x"] * (size + 1)]
    if "object" in kinds:
        values += PATTERN_SAMPLES.get(name, [])
        sizes = [s for spec in specs for s in _walk(spec, "maxProperties")]
        for size in sizes:
            for count in (size, size + 1):
                values.append({f"V{i}": "x" for i in range(count)})
    if name in ("cwd", "workdir"):  # whether a directory exists is not the schema's to know
        return ["/", ".", "", "a\x00b", "\ud800", "/\udcff\x00", 0, True, [], {}]
    if name == "yield_until":
        values = PATTERN_SAMPLES["yield_until"] + [0, True]
    return values + WRONG_TYPES


POOLS = {}
for _family, _tool in TOOLS:
    _found: dict[str, list[dict[str, Any]]] = {}
    _specs(SCHEMAS[_family][_tool], _found)
    POOLS[_tool] = {name: _pool(name, specs) for name, specs in _found.items()}


@st.composite
def corpus_calls(draw: st.DrawFn, tool: str) -> dict[str, Any]:
    pools = POOLS[tool]
    names = sorted(pools)
    call: dict[str, Any] = {}
    if "action" in pools:
        enum = [v for v in pools["action"] if isinstance(v, str)]
        call["action"] = draw(st.sampled_from(enum))
    chosen = draw(st.lists(st.sampled_from(names), max_size=5, unique=True)) if names else []
    for name in chosen:
        if name == "action" and "action" in call and draw(st.integers(0, 3)):
            continue
        call[name] = copy.deepcopy(draw(st.sampled_from(pools[name])))
    if draw(st.integers(0, 15)) == 0:
        call["surprise"] = 1
    return call


@pytest.mark.parametrize(("family", "tool"), TOOLS)
@settings(
    max_examples=350,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_schema_and_engine_agree_on_a_generated_corpus(family, tool, data):
    call = data.draw(corpus_calls(tool))
    assert schema_ok(family, tool, call) == engine_ok(family, tool, call), shown(call)


@pytest.mark.parametrize(("family", "tool"), TOOLS)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_null_fields_count_as_omitted(family, tool, data):
    call = data.draw(corpus_calls(tool))
    nulled = [name for name in call if name != "action" and data.draw(st.booleans())]
    with_nulls = {**call, **dict.fromkeys(nulled)}
    without = {k: v for k, v in with_nulls.items() if v is not None}
    verdict = engine_ok(family, tool, with_nulls)
    assert verdict == engine_ok(family, tool, without) == schema_ok(family, tool, without)


# -- each pattern means what the engine's parser accepts -----------------------------------


def _pattern_ok(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


@settings(max_examples=800)
@given(st.text(alphabet="\\xuUnq0123478dDaAfF9{}'\"? \n\udcff\ud800", max_size=14))
def test_the_escape_rules_are_exactly_what_parse_escapes_reads(text):
    from jobs_tui.engine.calls.toolschemas import WRITE_STDIN
    from jobs_tui.engine.tools.keys import InputError, parse_escapes

    by_schema = validator(WRITE_STDIN["properties"]["chars"]).is_valid(text)
    try:
        parse_escapes(text)
        parsed = True
    except InputError:
        parsed = False
    assert by_schema == parsed, text


_TOKEN_PARTS = st.sampled_from(
    [
        *["C-", "M-", "S-", "c-", "s-", "m-", "x", "X", "1", "?", "@", "[", " ", "-", "\n", "ß"],
        *["Enter", "tab", "F5", "f13", "F01", "PgUp", "btab", "^", "Up", "Nope", "\udcff"],
        "\ud800",
    ]
)


@settings(max_examples=800)
@given(st.lists(_TOKEN_PARTS, min_size=0, max_size=4).map("".join))
def test_the_key_rules_are_exactly_what_encode_keys_reads(token):
    from jobs_tui.engine.calls.toolschemas import PROCESS
    from jobs_tui.engine.tools.keys import InputError, encode_keys

    by_schema = validator(PROCESS["properties"]["keys"]["items"]).is_valid(token)
    try:
        encode_keys([token])
        encode_keys([token], application=True)
        encoded = True
    except InputError:
        encoded = False
    assert by_schema == encoded, token


@settings(max_examples=500)
@given(st.text(alphabet="0xX1bBfFgG \t\n\u3000", max_size=4))  # items are at most 4 long
def test_the_hex_rule_is_exactly_what_parse_hex_reads(text):
    from jobs_tui.engine.calls.toolschemas import PROCESS
    from jobs_tui.engine.tools.keys import InputError, parse_hex

    by_schema = validator(PROCESS["properties"]["hex"]["items"]).is_valid(text)
    try:
        parse_hex([text])
        parsed = True
    except InputError:
        parsed = False
    assert by_schema == parsed, text


@settings(max_examples=500)
@given(st.text(alphabet="YWQJj+/=%\n ", max_size=10), st.binary(max_size=12))
def test_the_base64_rule_admits_what_b64decode_reads(text, raw):
    # The rule is the canonical form (no excess padding, no line breaks): whatever it admits
    # decodes, and every encoding of bytes is admitted.
    from jobs_tui.engine.calls.toolschemas import WRITE_STDIN

    valid = validator(WRITE_STDIN["properties"]["chars_b64"]).is_valid
    if valid(text):
        base64.b64decode(text, validate=True)
    else:
        with pytest.raises((binascii.Error, ValueError)):
            canonical = base64.b64encode(base64.b64decode(text, validate=True)).decode()
            assert canonical != text
            raise ValueError("not canonical")
    assert valid(base64.b64encode(raw).decode())


@settings(max_examples=500)
@given(
    st.tuples(
        st.sampled_from(["1969", "1970", "2001", "2999", "3000", "0000", "20x1"]),
        st.sampled_from(["-01", "-12", "-13", "-00", "-1"]),
        st.sampled_from(["-01", "-28", "-00", "-32", "-1"]),
        st.sampled_from(["T", "t", " ", "_", ""]),
        st.sampled_from(["00", "23", "24", "7"]),
        st.sampled_from([":00", ":59", ":60", ""]),
        st.sampled_from(
            ["", ":00", ":59", ":60", ":00.5", ":00,123456789", ":00.", ":00.1234567890"]
        ),
        st.sampled_from(["Z", "z", "+00:00", "-23:59", "+24:00", "+0530", "", "Z\n", " Z"]),
    ).map("".join)
)
def test_the_time_rule_is_exactly_what_parse_utc_reads(text):
    from jobs_tui.engine.calls.toolschemas import WRITE_STDIN
    from jobs_tui.engine.tools.common import parse_utc
    from jobs_tui.engine.tools.validation import ToolInputError

    by_schema = validator(WRITE_STDIN["properties"]["yield_until"]).is_valid(text)
    try:
        parse_utc(text, "yield_until")
        parsed = True
    except ToolInputError:
        parsed = False
    assert by_schema == parsed, text


def test_the_whitespace_class_is_pythons():
    from jobs_tui.engine.calls.callschema import NOT_BLANK

    blank = {chr(c) for c in range(0x110000) if not _pattern_ok(NOT_BLANK, chr(c))}
    assert blank == {chr(c) for c in range(0x110000) if chr(c).isspace()}
