"""Validation of `job` tool calls: every action, every bad input, the JSON schema."""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobs_tui.engine import job_tool_schema
from jobs_tui.engine.calls import callschema
from jobs_tui.engine.records.model import ACTIONS, KILL_SIGNALS
from jobs_tui.engine.tools.job import CallError, JobCall, validate

# What the reference's field table says of each field: its JSON type.
FIELD_TYPES = {
    "action": "string",
    "command": "string",
    "cwd": "string",
    "label": "string",
    "wake": "boolean",
    "detached": "boolean",
    "stdin": "boolean",
    "id": "string",
    "lines": "integer",
    "input": "string",
    "newline": "boolean",
    "eof": "boolean",
    "signal": "string",
    "timeoutMs": "integer",
    "all": "boolean",
    # issue 11
    "env": "object",
    "ids": "array",
    "mode": "string",
    "until": "string",
    "fromStart": "boolean",
    "grep": "string",
    "context": "integer",
    "since": "string",
    "timestamps": "boolean",
    # issue 23
    "raw": "boolean",
    "port": "integer",
    # issue 26
    "names": "array",
    "ready": "boolean",
    "pid": "integer",  # issue 27: kill a stray
}


def branch(action: str) -> dict:
    """The schema's rules for one action (its `if action == ...` / `then`)."""
    for rule in job_tool_schema()["allOf"]:
        if rule.get("if", {}).get("properties", {}).get("action", {}).get("const") == action:
            return rule["then"]
    raise AssertionError(f"no rules for action {action!r}")


def applies(action: str) -> set[str]:
    """The fields an action takes: every property its rules do not set to false."""
    refused = {name for name, spec in branch(action).get("properties", {}).items() if spec is False}
    return set(FIELD_TYPES) - {"action"} - refused


def needs_id(action: str) -> bool:
    return "id" in branch(action).get("required", [])


def _error(call, **kwargs) -> CallError:
    with pytest.raises(CallError) as info:
        validate(call, **kwargs)
    return info.value


def assert_names_field(call, field, **kwargs):
    err = _error(call, **kwargs)
    assert err.field == field, (call, err.field, str(err))
    assert field in str(err), (call, str(err))
    return err


# -- every action, valid, with its defaults ---------------------------------------------


def test_start_defaults():
    call = validate({"action": "start", "command": "make test"})
    assert call == JobCall(action="start", command="make test")
    assert call.cwd is None and call.label is None
    assert call.wake is None and call.detached is None
    assert call.stdin is False and call.timeout_ms is None


def test_start_all_fields(tmp_path):
    call = validate(
        {
            "action": "start",
            "command": "pytest -q",
            "cwd": str(tmp_path),
            "label": "tests",
            "wake": True,
            "detached": False,
            "stdin": True,
            "timeoutMs": 5000,
        }
    )
    assert call == JobCall(
        action="start",
        command="pytest -q",
        cwd=str(tmp_path),
        label="tests",
        wake=True,
        detached=False,
        stdin=True,
        timeout_ms=5000,
    )


def test_start_relative_cwd_resolves_against_the_session_cwd(tmp_path):
    (tmp_path / "sub").mkdir()
    call = validate(
        {"action": "start", "command": "ls", "cwd": "sub/../sub"}, session_cwd=str(tmp_path)
    )
    assert call.cwd == str(tmp_path / "sub")


def test_start_relative_cwd_without_session_cwd_uses_process_cwd(tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path)
    assert validate({"action": "start", "command": "ls", "cwd": "here"}).cwd == os.path.join(
        os.getcwd(), "here"
    )


def test_list_defaults_and_all():
    assert validate({"action": "list"}) == JobCall(action="list", all=False)
    assert validate({"action": "list", "all": True}).all is True


def test_status():
    assert validate({"action": "status", "id": "j12"}) == JobCall(action="status", id="j12")


def test_logs_defaults_and_lines():
    assert validate({"action": "logs", "id": "j1"}) == JobCall(action="logs", id="j1", lines=None)
    assert validate({"action": "logs", "id": "j1", "lines": 50}).lines == 50


def test_send_defaults():
    call = validate({"action": "send", "id": "j2", "input": "print(1)"})
    assert call == JobCall(action="send", id="j2", input="print(1)", newline=True, eof=False)


def test_send_newline_false_and_eof():
    call = validate({"action": "send", "id": "j2", "input": "q", "newline": False, "eof": True})
    assert (call.input, call.newline, call.eof) == ("q", False, True)


def test_send_eof_without_input():
    call = validate({"action": "send", "id": "j2", "eof": True})
    assert call.input is None and call.eof is True


def test_send_needs_input_unless_eof():
    assert_names_field({"action": "send", "id": "j2"}, "input")
    assert_names_field({"action": "send", "id": "j2", "eof": False}, "input")


def test_send_empty_input_is_allowed():
    # An empty input with the default newline sends a bare Enter.
    assert validate({"action": "send", "id": "j2", "input": ""}).input == ""


def test_kill_default_signal():
    assert validate({"action": "kill", "id": "j3"}) == JobCall(
        action="kill", id="j3", signal="SIGTERM"
    )


@pytest.mark.parametrize("sig", KILL_SIGNALS)
def test_kill_each_signal(sig):
    assert validate({"action": "kill", "id": "j3", "signal": sig}).signal == sig


def test_kill_signals_are_the_reference_three():
    assert set(KILL_SIGNALS) == {"SIGTERM", "SIGKILL", "SIGINT"}


def test_wait_default_timeout():
    call = validate({"action": "wait", "id": "j4"})
    assert call == JobCall(action="wait", id="j4", timeout_ms=30_000)


@pytest.mark.parametrize("ms", [0, 1, 120_000, 600_000])
def test_wait_timeout_bounds_accepted(ms):
    assert validate({"action": "wait", "id": "j4", "timeoutMs": ms}).timeout_ms == ms


def test_clear_without_and_with_id():
    assert validate({"action": "clear"}) == JobCall(action="clear", id=None, all=False)
    assert validate({"action": "clear", "id": "j5"}).id == "j5"
    assert validate({"action": "clear", "all": True}).all is True


def test_actions_are_the_reference_eight_restart_and_up_down():
    reference = ("start", "list", "status", "logs", "send", "kill", "wait", "clear")
    assert tuple(ACTIONS) == (*reference, "restart", "up", "down")  # issues 11 and 26


@pytest.mark.parametrize("action", ["status", "logs", "send", "kill", "restart"])
def test_id_required(action):
    call = {"action": action}
    if action == "send":
        call["eof"] = True
    err = assert_names_field(call, "id")
    assert "required" in str(err)


def test_kill_takes_id_or_a_strays_pid_not_both_and_pid_without_signal():
    assert validate({"action": "kill", "pid": 4242}).pid == 4242
    assert validate({"action": "kill", "id": "j1"}).pid is None
    err = assert_names_field({"action": "kill", "id": "j1", "pid": 4242}, "pid")
    assert "cannot be combined" in str(err)
    err = assert_names_field({"action": "kill", "pid": 4242, "signal": "SIGKILL"}, "signal")
    assert "cannot be combined" in str(err)
    for bad in (0, -1, callschema.MAX_PID + 1, "42", True):
        assert_names_field({"action": "kill", "pid": bad}, "pid")
    assert validate({"action": "strays"}) == JobCall(action="strays")
    assert_names_field({"action": "strays", "pid": 1}, "pid")


def test_wait_takes_id_ids_or_neither_but_not_both():
    # neither: the next finish of the session's running jobs (issue 23 D)
    assert validate({"action": "wait"}) == JobCall(action="wait", timeout_ms=30_000)
    assert validate({"action": "wait", "port": 8000}).port == 8000
    err = assert_names_field({"action": "wait", "id": "j1", "ids": ["j2"]}, "ids")
    assert "cannot be combined" in str(err)


def test_null_fields_count_as_absent():
    assert validate({"action": "list", "id": None, "command": None}) == JobCall(action="list")
    assert validate({"action": "kill", "id": "j1", "signal": None}).signal == "SIGTERM"
    assert validate({"action": "wait", "id": "j1", "timeoutMs": None}).timeout_ms == 30_000
    assert validate({"action": "send", "id": "j1", "input": "x", "newline": None}).newline


# -- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["", " ", "\t\n  "])
def test_empty_command(command):
    assert_names_field({"action": "start", "command": command}, "command")


def test_missing_command():
    assert_names_field({"action": "start"}, "command")


def test_command_length_limit():
    assert validate({"action": "start", "command": "x" * 4000}).command == "x" * 4000
    err = assert_names_field({"action": "start", "command": "x" * 4001}, "command")
    assert "4000" in str(err)


def test_command_with_nul():
    assert_names_field({"action": "start", "command": "echo a\x00b"}, "command")


def test_label_length_limit():
    assert validate({"action": "start", "command": "x", "label": "l" * 120}).label == "l" * 120
    assert_names_field({"action": "start", "command": "x", "label": "l" * 121}, "label")


@pytest.mark.parametrize("action", ["run", "START", "", "exec", "kill "])
def test_unknown_action(action):
    err = assert_names_field({"action": action}, "action")
    assert "start" in str(err)  # lists the valid actions


def test_missing_action():
    assert_names_field({}, "action")
    assert_names_field({"id": "j1"}, "action")


@pytest.mark.parametrize("call", [None, [], "start", 3, ["action", "start"]])
def test_not_an_object(call):
    assert _error(call).field == "action"


@pytest.mark.parametrize("name", ["foo", "timeout", "timeout_ms", "Action", "signals", "pid"])
def test_unknown_field(name):
    assert_names_field({"action": "list", name: 1}, name)


def test_unknown_field_checked_before_anything_else():
    assert_names_field({"action": "nope", "zzz": 1}, "zzz")


def test_non_string_key_is_a_call_error():
    err = _error({"action": "list", 1: True, "x": 2})
    assert err.field in {"1", "x"}
    assert err.field in str(err)


NOT_APPLYING = [
    (action, name)
    for action in ACTIONS
    for name in FIELD_TYPES
    if name != "action" and name not in applies(action)
]


@pytest.mark.parametrize(("action", "name"), NOT_APPLYING)
def test_field_not_applying_to_action(action, name):
    value = {
        "boolean": True,
        "integer": 5,
        "string": "j1",
        "array": ["j1"],
        "object": {"A": "1"},
    }[FIELD_TYPES[name]]
    call = {"action": action, name: value}
    if needs_id(action):
        call["id"] = "j1"
    if action == "start":
        call["command"] = "true"
    err = assert_names_field(call, name)
    assert action in str(err)


def test_applies_table_matches_the_reference():
    # Which fields each action takes, as the reference's field table documents them.
    assert applies("start") == {
        "command",
        "cwd",
        "label",
        "wake",
        "detached",
        "stdin",
        "timeoutMs",
        "env",  # issue 11
    }
    assert applies("list") == {"all"}
    assert applies("status") == {"id"}
    assert applies("logs") == {"id", "lines", "grep", "context", "since", "timestamps", "raw"}
    assert applies("send") == {"id", "input", "newline", "eof"}
    assert applies("kill") == {"id", "signal", "pid"}  # issue 27: pid, a stray's
    assert applies("wait") == {
        "id",
        "ids",
        "mode",
        "until",
        "fromStart",
        "port",
        "ready",  # issue 26
        "timeoutMs",
    }
    assert applies("clear") == {"id", "all"}
    assert applies("restart") == {"id"}
    assert applies("up") == {"names", "detached"}  # issue 26
    assert applies("down") == {"names"}
    assert applies("strays") == set()  # issue 27
    # kill: id or pid (a stray's), one of them
    assert {a for a in ACTIONS if needs_id(a)} == {"status", "logs", "send", "restart"}


@pytest.mark.parametrize(
    "job_id",
    [
        "1",  # reads as an id, so never a declared name either
        "j0",
        "j01",
        "j1 ",
        " j1",
        "j1\n",
        "",
        "j\u0661",
        "j\u00b2",
        "j1234567890",
        "../j1",
        "j1/x",
        "-api",
        "a" * 65,
    ],
)
@pytest.mark.parametrize("action", ["status", "logs", "kill", "wait", "clear"])
def test_malformed_id(action, job_id):
    assert_names_field({"action": action, "id": job_id}, "id")


@pytest.mark.parametrize("name", ["j", "J1", "j-1", "jj1", "j1.5", "j1a", "api", "db_2"])
def test_a_declared_name_is_taken_where_an_id_is(name):
    assert validate({"action": "status", "id": name}).id == name


@pytest.mark.parametrize("job_id", ["j1", "j9", "j10", "j123456789"])
def test_wellformed_ids(job_id):
    assert validate({"action": "status", "id": job_id}).id == job_id


@pytest.mark.parametrize("lines", [0, -1, 2001, 10**9])
def test_lines_out_of_range(lines):
    err = assert_names_field({"action": "logs", "id": "j1", "lines": lines}, "lines")
    assert "2000" in str(err)


@pytest.mark.parametrize("lines", [1, 2000])
def test_lines_bounds_accepted(lines):
    assert validate({"action": "logs", "id": "j1", "lines": lines}).lines == lines


def test_input_length_limit():
    ok = validate({"action": "send", "id": "j1", "input": "i" * 8192})
    assert len(ok.input) == 8192
    err = assert_names_field({"action": "send", "id": "j1", "input": "i" * 8193}, "input")
    assert "8192" in str(err)


@pytest.mark.parametrize("sig", ["SIGHUP", "sigterm", "TERM", "KILL", "", "SIGTERM ", "SIGSTOP"])
def test_signal_outside_the_three(sig):
    assert_names_field({"action": "kill", "id": "j1", "signal": sig}, "signal")


@pytest.mark.parametrize("ms", [0, -1, 86_400_001, 10**12])
def test_start_timeout_out_of_range(ms):
    assert_names_field({"action": "start", "command": "x", "timeoutMs": ms}, "timeoutMs")


@pytest.mark.parametrize("ms", [1, 86_400_000])
def test_start_timeout_bounds_accepted(ms):
    assert validate({"action": "start", "command": "x", "timeoutMs": ms}).timeout_ms == ms


@pytest.mark.parametrize("ms", [-1, 600_001, 86_400_000])
def test_wait_timeout_out_of_range(ms):
    assert_names_field({"action": "wait", "id": "j1", "timeoutMs": ms}, "timeoutMs")


def test_cwd_that_does_not_exist(tmp_path):
    missing = tmp_path / "missing"
    assert_names_field({"action": "start", "command": "x", "cwd": str(missing)}, "cwd")


def test_cwd_that_is_a_file(tmp_path):
    file = tmp_path / "file"
    file.write_text("")
    assert_names_field({"action": "start", "command": "x", "cwd": str(file)}, "cwd")


@pytest.mark.parametrize("cwd", ["", "a\x00b"])
def test_cwd_empty_or_nul(cwd):
    assert_names_field({"action": "start", "command": "x", "cwd": cwd}, "cwd")


def test_cwd_relative_to_missing_session_cwd(tmp_path):
    assert_names_field(
        {"action": "start", "command": "x", "cwd": "sub"}, "cwd", session_cwd=str(tmp_path)
    )


WRONG_TYPES = [
    ({"action": 1}, "action"),
    ({"action": True}, "action"),
    ({"action": ["start"]}, "action"),
    ({"action": "start", "command": 5}, "command"),
    ({"action": "start", "command": ["ls"]}, "command"),
    ({"action": "start", "command": "x", "cwd": 5}, "cwd"),
    ({"action": "start", "command": "x", "label": 5}, "label"),
    ({"action": "start", "command": "x", "wake": "yes"}, "wake"),
    ({"action": "start", "command": "x", "wake": 1}, "wake"),
    ({"action": "start", "command": "x", "detached": 0}, "detached"),
    ({"action": "start", "command": "x", "stdin": "true"}, "stdin"),
    ({"action": "start", "command": "x", "timeoutMs": True}, "timeoutMs"),
    ({"action": "start", "command": "x", "timeoutMs": "1000"}, "timeoutMs"),
    ({"action": "start", "command": "x", "timeoutMs": 1.5}, "timeoutMs"),
    ({"action": "status", "id": 1}, "id"),
    ({"action": "status", "id": True}, "id"),
    ({"action": "logs", "id": "j1", "lines": True}, "lines"),
    ({"action": "logs", "id": "j1", "lines": False}, "lines"),
    ({"action": "logs", "id": "j1", "lines": "10"}, "lines"),
    ({"action": "logs", "id": "j1", "lines": 10.5}, "lines"),
    ({"action": "logs", "id": "j1", "lines": float("nan")}, "lines"),
    ({"action": "logs", "id": "j1", "lines": float("inf")}, "lines"),
    ({"action": "send", "id": "j1", "input": 5}, "input"),
    ({"action": "send", "id": "j1", "input": "x", "newline": "no"}, "newline"),
    ({"action": "send", "id": "j1", "eof": 1}, "eof"),
    ({"action": "kill", "id": "j1", "signal": 9}, "signal"),
    ({"action": "kill", "id": "j1", "signal": True}, "signal"),
    ({"action": "wait", "id": "j1", "timeoutMs": True}, "timeoutMs"),
    ({"action": "wait", "id": "j1", "timeoutMs": [1]}, "timeoutMs"),
    ({"action": "list", "all": "yes"}, "all"),
    ({"action": "clear", "all": 1}, "all"),
]


@pytest.mark.parametrize(("call", "field"), WRONG_TYPES)
def test_wrong_types(call, field):
    assert_names_field(call, field)


def test_boolean_for_int_says_so():
    err = assert_names_field({"action": "logs", "id": "j1", "lines": True}, "lines")
    assert "boolean" in str(err)


def test_integral_float_is_taken_as_an_int():
    # JSON numbers from some hosts arrive as floats; 50.0 is the whole number 50.
    call = validate({"action": "logs", "id": "j1", "lines": 50.0})
    assert call.lines == 50 and type(call.lines) is int


def test_validation_does_not_mutate_the_call():
    call = {"action": "start", "command": "x", "timeoutMs": 10.0}
    before = dict(call)
    validate(call)
    assert call == before


# -- fuzz: never anything but a JobCall or a CallError ------------------------------------

_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["j1", "j42", "SIGTERM", "SIGINT", "start", "/", "."]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_calls = st.dictionaries(
    st.one_of(st.sampled_from(sorted(FIELD_TYPES)), st.text(max_size=6)), _values, max_size=6
)


@settings(max_examples=400)
@given(st.sampled_from(ACTIONS), _calls)
def test_fuzz_validate_returns_a_call_or_names_a_field(action, call):
    call = {"action": action, **{k: v for k, v in call.items() if k != "action"}}
    try:
        result = validate(call, session_cwd="/")
    except CallError as err:
        assert err.field is not None
        assert err.field in str(err) or repr(err.field) in str(err)
        assert err.field in FIELD_TYPES or err.field in {str(k) for k in call}
        return
    assert isinstance(result, JobCall)
    assert result.action == action
    for name, value in call.items():
        if value is not None:
            assert name in applies(action) or name == "action"
    if result.id is not None:
        # a job id, or a declared name (one that never reads as an id)
        is_id = re.fullmatch(r"j[1-9][0-9]*", result.id)
        is_name = re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", result.id)
        assert is_id or (is_name and not re.fullmatch(r"j?[0-9]+", result.id))
    if action == "wait":
        assert 0 <= result.timeout_ms <= 600_000
    if action == "start":
        assert result.command.strip()
        assert result.timeout_ms is None or 1 <= result.timeout_ms <= 86_400_000
    if action == "logs" and result.lines is not None:
        assert 1 <= result.lines <= 2000
    if action == "kill":
        assert result.signal in KILL_SIGNALS


@given(st.integers(min_value=1, max_value=999_999_999))
def test_every_job_number_is_a_valid_id(n):
    assert validate({"action": "status", "id": f"j{n}"}).id == f"j{n}"


# -- the JSON schema ---------------------------------------------------------------------


def test_schema_shape():
    schema = job_tool_schema()
    json.dumps(schema)  # JSON-ready
    assert schema["type"] == "object"
    assert schema["required"] == ["action"]
    assert schema["additionalProperties"] is False
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert isinstance(schema.get("description"), str) and schema["description"]


def test_schema_properties_match_the_reference_fields():
    props = job_tool_schema()["properties"]
    assert set(props) == set(FIELD_TYPES)
    for name, expected in FIELD_TYPES.items():
        assert props[name]["type"] == expected, name


def test_schema_enums_and_limits():
    props = job_tool_schema()["properties"]
    assert props["action"]["enum"] == [*ACTIONS, "strays"]  # strays: no record's action
    assert props["signal"]["enum"] == list(KILL_SIGNALS)
    assert (props["lines"]["minimum"], props["lines"]["maximum"]) == (1, callschema.MAX_LINES)
    assert props["input"]["maxLength"] == callschema.MAX_INPUT
    assert props["command"]["maxLength"] == callschema.MAX_COMMAND
    assert props["label"]["maxLength"] == callschema.MAX_LABEL
    start = branch("start")["properties"]["timeoutMs"]
    assert (start["minimum"], start["maximum"]) == (1, callschema.MAX_START_TIMEOUT_MS)
    wait = branch("wait")["properties"]["timeoutMs"]
    assert (wait["minimum"], wait["maximum"]) == (0, callschema.MAX_WAIT_MS)


def test_schema_is_fresh_each_call():
    first = job_tool_schema()
    first["properties"].clear()
    first["allOf"].clear()
    assert set(job_tool_schema()["properties"]) == set(FIELD_TYPES)
    assert validate({"action": "status", "id": "j1"}).id == "j1"
    assert_names_field({"action": "status"}, "id")


@given(
    st.one_of(
        st.integers(min_value=0, max_value=10**12).map(lambda n: f"j{n}"),
        st.text(alphabet="j0123456789x\n ", max_size=12),
    )
)
def test_schema_id_pattern_agrees_with_validation(job_id):
    pattern = job_tool_schema()["properties"]["id"]["pattern"]
    # JSON Schema patterns are ECMA regexes: "$" is the true end (Python's \Z).
    schema_ok = re.search(pattern.replace("$", r"\Z"), job_id) is not None
    try:
        validate({"action": "status", "id": job_id})
        valid = True
    except CallError:
        valid = False
    assert schema_ok == valid


# -- one validator, driven by the schema (issue 10, item 2) --------------------------------


def test_no_hand_written_tables_or_second_schema():
    from jobs_tui.engine.tools import job

    for name in ("FIELDS", "APPLIES", "NEEDS_ID", "json_schema"):
        assert not hasattr(job, name), name


def test_the_job_schema_is_one_of_all_schemas():
    from jobs_tui.engine.tools import all_schemas

    assert all_schemas()["job"]["job"] == job_tool_schema()


def test_signal_names_and_limits_are_defined_once():
    # That the core never imports a vocabulary is an import-linter contract (pyproject.toml).
    from pathlib import Path

    engine = Path(callschema.__file__).parents[1]  # engine/, every room
    sources = sorted([*engine.rglob("*.py"), *(engine.parent / "app").rglob("*.py")])
    spelled = [p.name for p in sources if '"SIGTERM", "SIGKILL", "SIGINT"' in p.read_text()]
    assert spelled == ["protocol.py"]
    mapped = [p.name for p in sources if re.search(r'"SIG(TERM|KILL|INT)":', p.read_text())]
    assert mapped == []  # no second table of signal names (procs derives its own)
    for path in sources:
        text = path.read_text()
        if path.name != "protocol.py":  # a terminal's size: the shim's protocol has it
            assert not re.search(r"^(MIN|MAX)_(COLS|ROWS)\b", text, re.M), path.name
            assert not re.search(r"\b(20, 500|5, 300)\b", text), path.name
        if path.name != "callschema.py":
            assert not re.search(r"^MAX_(COMMAND|LABEL|INPUT|LINES)\b", text, re.M), path.name
            assert not re.search(r"^MAX_JOB_NUMBER =", text, re.M) or path.name == "ids.py"
            assert not re.search(r"<= 2000\b", text), path.name


# -- bad bytes, huge numbers and long input never crash and are never echoed whole ---------


@pytest.mark.parametrize(
    ("call", "field"),
    [
        ({"action": "start", "command": "x", "label": "x\ud800y"}, "label"),
        ({"action": "start", "command": "echo \udbff"}, "command"),
        ({"action": "start", "command": "x", "cwd": "/tmp/\udfff"}, "cwd"),
        ({"action": "send", "id": "j1", "input": "\ud800"}, "input"),
    ],
)
def test_a_lone_surrogate_is_refused_by_name(call, field):
    err = assert_names_field(call, field)
    assert "surrogate" in str(err)
    str(err).encode("utf-8")  # the message itself is printable


def test_undecodable_bytes_from_argv_are_accepted_as_they_are(tmp_path):
    # os.fsdecode turns a byte that is not UTF-8 into U+DC80-U+DCFF (surrogateescape).
    odd = tmp_path / os.fsdecode(b"dir\xff")
    odd.mkdir()
    command = os.fsdecode(b"printf '\xff'")
    call = validate(
        {"action": "start", "command": command, "label": os.fsdecode(b"b\xfe"), "cwd": str(odd)}
    )
    assert call.command == command and os.fsencode(call.command) == b"printf '\xff'"
    assert call.cwd == str(odd) and call.label == "b\udcfe"
    assert validate({"action": "send", "id": "j1", "input": "\udc80"}).input == "\udc80"


HUGE = [10**5000, -(10**5000), 1e308, -1e308, float("inf"), float("-inf"), float("nan")]
HUGE_IDS = ["10**5000", "-10**5000", "1e308", "-1e308", "inf", "-inf", "nan"]


@pytest.mark.parametrize("number", HUGE, ids=HUGE_IDS)
@pytest.mark.parametrize(
    ("call", "field"),
    [
        ({"action": "logs", "id": "j1"}, "lines"),
        ({"action": "start", "command": "x"}, "timeoutMs"),
        ({"action": "wait", "id": "j1"}, "timeoutMs"),
    ],
)
def test_huge_numbers_are_refused_by_name(call, field, number):
    err = assert_names_field({**call, field: number}, field)
    assert len(str(err)) < 200


def test_long_input_is_quoted_short():
    long = "x" * 100_000
    for call, field in [
        ({"action": "status", "id": "j" + long}, "id"),
        ({"action": "kill", "id": "j1", "signal": long}, "signal"),
        ({"action": long}, "action"),
        ({"action": "start", "command": "x", "cwd": "/" + long}, "cwd"),
        ({"action": "start", "command": long}, "command"),
    ]:
        err = _error(call)
        assert err.field == field and len(str(err)) < 300, (field, len(str(err)))
        assert "…" in str(err) or "100000" in str(err) or "100001" in str(err)
    err = _error({"action": "list", long: 1})
    assert len(str(err)) < 300 and len(err.field) <= 81
