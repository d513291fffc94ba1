"""Pure rules of the facades: schema checks, wait plans, names, env, ids, exit codes."""

from __future__ import annotations

import json

import pytest

from jobs_tui.engine.calls.toolschemas import EXEC, EXEC_COMMAND, PROCESS, WRITE_STDIN
from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.engine.tools import all_schemas
from jobs_tui.engine.tools.common import (
    derive_name,
    exit_status_code,
    iso_utc,
    job_id_from,
    parse_utc,
)
from jobs_tui.engine.tools.exec_command import wait_plan
from jobs_tui.engine.tools.validation import ToolInputError, check


def fails(schema, args, field: str | None, match: str | None = None) -> None:
    with pytest.raises(ToolInputError, match=match) as caught:
        check(schema, args, "tool")
    assert caught.value.field == field


def test_unknown_fields_are_rejected_by_name():
    fails(EXEC_COMMAND, {"cmd": "ls", "yield_until": "x"}, "yield_until", "unknown field")
    fails(PROCESS, {"action": "list", "elevated": True}, "elevated")


def test_required_types_enums_and_ranges_name_their_field():
    fails(EXEC_COMMAND, {}, "cmd", "required")
    fails(EXEC_COMMAND, {"cmd": ""}, "cmd", "empty")
    fails(EXEC_COMMAND, {"cmd": 5}, "cmd", "must be a string")
    fails(EXEC_COMMAND, {"cmd": "ls", "tty": "yes"}, "tty", "true or false")
    fails(EXEC_COMMAND, {"cmd": "ls", "on_exit": "maybe"}, "on_exit", "not one of")
    fails(EXEC_COMMAND, {"cmd": "ls", "timeout_seconds": 0}, "timeout_seconds", "more than 0")
    fails(EXEC_COMMAND, {"cmd": "ls", "timeout_seconds": 86_401}, "timeout_seconds", "maximum")
    fails(EXEC_COMMAND, {"cmd": "ls", "yield_time_ms": -1}, "yield_time_ms", "minimum")
    fails(EXEC_COMMAND, {"cmd": "ls", "yield_time_ms": True}, "yield_time_ms", "a number")
    fails(EXEC_COMMAND, {"cmd": "x" * 4001}, "cmd", "limit is 4000")
    fails(WRITE_STDIN, {"session_id": 1, "cols": 19, "rows": 24}, "cols", "19 is outside 20-500")
    fails(WRITE_STDIN, {"session_id": 1, "cols": 80, "rows": 301}, "rows", "301 is outside 5-300")
    fails(WRITE_STDIN, {"session_id": 1.5}, "session_id", "whole number or a string")
    keys = {"action": "send-keys", "sessionId": "j1", "keys": ["Enter", 3]}
    fails(PROCESS, keys, "keys", r"keys\[1\] must be")
    fails(PROCESS, {"action": "poll", "keys": ["Enter"]}, "keys", "does not apply to action")
    fails(EXEC, {"command": "ls", "env": {"1BAD": "x"}}, "env", "not a valid variable name")
    fails(EXEC, {"command": "ls", "env": {"OK": 1}}, "env", "env.OK must be a string")
    fails(EXEC, "ls", None, "object of named fields")


def test_values_are_typed_and_null_means_omitted():
    v = check(EXEC_COMMAND, {"cmd": "ls", "yield_time_ms": 500.0, "workdir": None}, "t")
    assert v == {"cmd": "ls", "yield_time_ms": 500.0}
    assert check(WRITE_STDIN, {"session_id": 2.0}, "t") == {"session_id": 2}


def test_every_schema_is_closed_and_json():
    schemas = all_schemas()
    assert set(schemas) == {"job", "exec_command", "process"}
    assert set(schemas["exec_command"]) == {
        "exec_command",
        "write_stdin",
        "list_sessions",
        "set_on_exit",
        "kill_session",
    }
    assert set(schemas["process"]) == {"exec", "process"}
    for family in schemas.values():
        for schema in family.values():
            assert schema["additionalProperties"] is False and schema["type"] == "object"
    json.dumps(schemas)


@pytest.mark.parametrize(
    ("asked", "acts", "plan"),
    [
        (None, True, ("relative", 250)),
        (0, True, ("relative", 250)),
        (100_000, True, ("relative", 30_000)),
        (1000, True, ("relative", 1000)),
        (0, False, ("immediate", 0)),
        (None, False, ("relative", 5000)),
        (0.5, False, ("relative", 5000)),  # a positive fraction is not an immediate read
        (7000, False, ("relative", 7000)),
        (10**9, False, ("relative", 600_000)),
    ],
)
def test_write_stdin_wait_plan(asked, acts, plan):
    assert wait_plan(asked, acts) == plan


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("npm run build", "npm run"),
        ("pytest -q tests/unit", "pytest tests/unit"),
        ("FOO=1 BAR=2 make -j4 all", "make all"),
        ("/usr/bin/python3 -m http.server", "python3 http.server"),
        ("ls", "ls"),
        ("ls -la", "ls -la"),
        ("export A='x y'; node server.js", "node server.js"),
        ("echo 'unterminated", "echo 'unterminated"),
        ("cat " + "x" * 100, "cat " + "x" * 22 + "..." + "x" * 23),
    ],
)
def test_derived_names(command: str, name: str):
    assert derive_name(command) == name


def test_session_ids():
    assert job_id_from(3, "session_id") == "j3"
    assert job_id_from("3", "session_id") == "j3"
    assert job_id_from("j3", "sessionId") == "j3"
    assert job_id_from("api", "sessionId") == "api"  # a declared name, resolved later
    for bad in (0, -1, "x!", "j0", True, None, "j1\n", "api\n"):
        with pytest.raises(ToolInputError) as caught:
            job_id_from(bad, "sessionId")
        assert caught.value.field == "sessionId"


def record(**fields) -> JobRecord:
    base = dict(
        id="j1",
        label="l",
        command="c",
        cwd="/",
        pid=1,
        status=JobStatus.EXITED,
        exit_code=0,
        signal=None,
        started_at=0,
        finished_at=1,
        log_path="/x",
        detached=False,
        wake=False,
        session_id="s",
    )
    return JobRecord(**{**base, **fields})


def test_exit_status_codes_follow_the_shell():
    assert exit_status_code(record()) == 0
    assert exit_status_code(record(status=JobStatus.FAILED, exit_code=7)) == 7
    killed = record(status=JobStatus.KILLED, exit_code=None, signal="SIGKILL", exit_status=-9)
    assert exit_status_code(killed) == 137
    trapped = record(status=JobStatus.KILLED, exit_code=None, signal="SIGTERM", exit_status=0)
    assert exit_status_code(trapped) == 143
    assert exit_status_code(record(status=JobStatus.UNKNOWN, exit_code=None)) is None


def test_utc_times_round_trip():
    assert iso_utc(0) == "1970-01-01T00:00:00.000Z"
    assert iso_utc(1_700_000_000_123) == "2023-11-14T22:13:20.123Z"
    assert parse_utc("2023-11-14T22:13:20.123Z", "f") == 1_700_000_000_123
    for bad in ("yesterday", "2023-11-14T22:13:20"):
        with pytest.raises(ToolInputError) as caught:
            parse_utc(bad, "yield_until")
        assert caught.value.field == "yield_until"
