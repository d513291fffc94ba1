"""JobRecord (de)serialisation against registry-format.md, and the outcome mapping."""

from __future__ import annotations

import json
import signal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jobs_tui.engine.records.model import (
    EndReason,
    JobRecord,
    JobStatus,
    RecordError,
    outcome,
)


def reference_record(**overrides) -> dict:
    """A record exactly as the reference `job` tool writes it (no fields of ours)."""
    data = {
        "id": "j7",
        "label": "tests",
        "command": "bun test",
        "cwd": "/home/me/project",
        "pid": 4242,
        "status": "exited",
        "exitCode": 0,
        "signal": None,
        "startedAt": 1_700_000_000_000,
        "finishedAt": 1_700_000_005_000,
        "logPath": "/state/jobs/project-abc/j7.log",
        "detached": False,
        "wake": True,
        "sessionId": "session-a",
        "seen": False,
        "lastLine": "12 passed",
        "statusPath": "/state/jobs/project-abc/j7.status",
        "startToken": "123456",
    }
    data.update(overrides)
    return data


# -- round trip --------------------------------------------------------------------------


def test_from_json_reads_every_field():
    rec = JobRecord.from_json(reference_record())
    assert rec.id == "j7" and rec.number == 7
    assert rec.label == "tests"
    assert rec.command == "bun test"
    assert rec.cwd == "/home/me/project"
    assert rec.pid == 4242
    assert rec.status is JobStatus.EXITED
    assert rec.exit_code == 0
    assert rec.signal is None
    assert rec.started_at == 1_700_000_000_000
    assert rec.finished_at == 1_700_000_005_000
    assert rec.log_path == "/state/jobs/project-abc/j7.log"
    assert rec.detached is False and rec.wake is True
    assert rec.session_id == "session-a"
    assert rec.seen is False
    assert rec.last_line == "12 passed"
    assert rec.status_path == "/state/jobs/project-abc/j7.status"
    assert rec.start_token == "123456"
    assert rec.unknown == {}


def test_to_json_keeps_every_reference_field_unchanged():
    data = reference_record()
    out = JobRecord.from_json(data).to_json()
    for key, value in data.items():
        assert out[key] == value, key
        assert type(out[key]) is type(value), key
    assert out["status"] == "exited" and type(out["status"]) is str


def test_round_trip_through_json_text():
    rec = JobRecord.from_json(reference_record(status="running", exitCode=None, finishedAt=None))
    again = JobRecord.from_json(json.loads(json.dumps(rec.to_json())))
    assert again == rec


def test_our_extra_fields_round_trip():
    rec = JobRecord.from_json(
        reference_record(
            status="killed",
            exitCode=None,
            signal="SIGTERM",
            endReason="deadline",
            exitStatus=-15,
            stdin=True,
            timeoutMs=5000,
            shimPid=99,
            shimToken="tok",
            logBytes=1234,
        )
    )
    assert rec.end_reason == "deadline"
    assert rec.exit_status == -15
    assert rec.stdin is True
    assert rec.timeout_ms == 5000
    assert rec.shim_pid == 99 and rec.shim_token == "tok"
    assert rec.log_bytes == 1234
    assert rec.unknown == {}
    assert JobRecord.from_json(rec.to_json()) == rec


def test_unknown_fields_are_preserved():
    data = reference_record(futureField={"nested": [1, 2]}, anotherTool="x", zeta=None)
    rec = JobRecord.from_json(data)
    assert rec.unknown == {"futureField": {"nested": [1, 2]}, "anotherTool": "x", "zeta": None}
    out = rec.to_json()
    assert out["futureField"] == {"nested": [1, 2]}
    assert out["anotherTool"] == "x"
    assert "zeta" in out and out["zeta"] is None
    assert JobRecord.from_json(out).unknown == rec.unknown


def test_unknown_fields_cannot_override_core_fields():
    rec = JobRecord.from_json(reference_record())
    rec.unknown["status"] = "bogus"  # even if something put a core key in unknown
    assert rec.to_json()["status"] == "exited"


def test_copy_is_independent():
    rec = JobRecord.from_json(reference_record(extra={"a": 1}))
    dup = rec.copy()
    assert dup == rec and dup is not rec
    dup.unknown["more"] = 1
    dup.label = "changed"
    assert "more" not in rec.unknown
    assert rec.label == "tests"


@pytest.mark.parametrize("missing", ["statusPath", "startToken"])
def test_missing_optional_fields_read_as_none(missing):
    data = reference_record()
    del data[missing]
    rec = JobRecord.from_json(data)
    assert getattr(rec, {"statusPath": "status_path", "startToken": "start_token"}[missing]) is None
    assert rec.to_json()[missing] is None


def test_both_optional_fields_missing():
    data = reference_record()
    del data["statusPath"], data["startToken"]
    rec = JobRecord.from_json(data)
    assert rec.status_path is None and rec.start_token is None


def test_float_timestamps_are_read_as_ints():
    rec = JobRecord.from_json(reference_record(startedAt=1.7e12 + 0.6, finishedAt=1.8e12))
    assert rec.started_at == 1_700_000_000_000 and type(rec.started_at) is int
    assert rec.finished_at == 1_800_000_000_000 and type(rec.finished_at) is int


@pytest.mark.parametrize("status", ["running", "exited", "killed", "failed", "unknown"])
def test_every_status(status):
    rec = JobRecord.from_json(reference_record(status=status))
    assert rec.status is JobStatus(status)
    assert rec.running == (status == "running")
    assert rec.status.finished == (status != "running")


# -- rejected entries --------------------------------------------------------------------

REQUIRED = [
    "id",
    "label",
    "command",
    "cwd",
    "pid",
    "status",
    "exitCode",
    "signal",
    "startedAt",
    "finishedAt",
    "logPath",
    "detached",
    "wake",
    "sessionId",
    "seen",
    "lastLine",
]


@pytest.mark.parametrize("key", REQUIRED)
def test_missing_required_field(key):
    data = reference_record()
    del data[key]
    with pytest.raises(RecordError, match=key):
        JobRecord.from_json(data)


WRONG = [
    ("id", 7),
    ("id", None),
    ("id", True),
    ("label", 1),
    ("label", None),
    ("label", ["x"]),
    ("command", None),
    ("command", 3),
    ("cwd", False),
    ("pid", True),
    ("pid", False),
    ("pid", "4242"),
    ("pid", 42.5),
    ("pid", 42.0),
    ("status", 1),
    ("status", None),
    ("exitCode", True),
    ("exitCode", "0"),
    ("exitCode", 1.5),
    ("signal", 15),
    ("signal", True),
    ("startedAt", True),
    ("startedAt", "1700000000000"),
    ("startedAt", None),
    ("finishedAt", False),
    ("finishedAt", "x"),
    ("logPath", None),
    ("logPath", 0),
    ("detached", 0),
    ("detached", "false"),
    ("detached", None),
    ("wake", 1),
    ("wake", None),
    ("sessionId", None),
    ("sessionId", 1),
    ("seen", "yes"),
    ("seen", None),
    ("lastLine", None),
    ("lastLine", 0),
    ("statusPath", 1),
    ("statusPath", True),
    ("startToken", 123456),
    ("startToken", False),
]


@pytest.mark.parametrize(("key", "value"), WRONG)
def test_wrong_type_is_rejected(key, value):
    with pytest.raises(RecordError, match=key):
        JobRecord.from_json(reference_record(**{key: value}))


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("key", ["startedAt", "finishedAt"])
def test_non_finite_timestamps_are_rejected(key, value):
    with pytest.raises(RecordError, match=key):
        JobRecord.from_json(reference_record(**{key: value}))


@pytest.mark.parametrize("status", ["done", "RUNNING", "", "exit"])
def test_unknown_status_value(status):
    with pytest.raises(RecordError, match="status"):
        JobRecord.from_json(reference_record(status=status))


@pytest.mark.parametrize(
    "job_id", ["x7", "j", "j0", "j07", "7", "j\u00b2", "j\u0661", "j7\n", "../j7", "j-7"]
)
def test_id_must_be_j_n(job_id):
    with pytest.raises(RecordError, match="id"):
        JobRecord.from_json(reference_record(id=job_id))


@pytest.mark.parametrize("entry", [None, [], "j1", 7, True])
def test_entry_not_an_object(entry):
    with pytest.raises(RecordError):
        JobRecord.from_json(entry)


@pytest.mark.parametrize(
    ("key", "value", "attr", "default"),
    [
        ("stdin", "yes", "stdin", False),
        ("tty", 1, "tty", False),
        ("logBytes", "12", "log_bytes", 0),
    ],
)
def test_wrong_typed_extra_fields_fall_back_to_defaults(key, value, attr, default):
    rec = JobRecord.from_json(reference_record(**{key: value}))
    assert getattr(rec, attr) == default


# -- property: any well-typed record round-trips -----------------------------------------

_opt_int = st.one_of(st.none(), st.integers(min_value=-(2**31), max_value=2**31))
_text = st.text(max_size=30)
_records = st.fixed_dictionaries(
    {
        "id": st.integers(min_value=1, max_value=999_999_999).map(lambda n: f"j{n}"),
        "label": _text,
        "command": _text,
        "cwd": _text,
        "pid": _opt_int,
        "status": st.sampled_from([s.value for s in JobStatus]),
        "exitCode": _opt_int,
        "signal": st.one_of(st.none(), st.sampled_from(["SIGTERM", "SIGKILL", "SIGINT"])),
        "startedAt": st.integers(min_value=0, max_value=2**53),
        "finishedAt": st.one_of(st.none(), st.integers(min_value=0, max_value=2**53)),
        "logPath": _text,
        "detached": st.booleans(),
        "wake": st.booleans(),
        "sessionId": _text,
        "seen": st.booleans(),
        "lastLine": _text,
    },
    optional={
        "statusPath": st.one_of(st.none(), _text),
        "startToken": st.one_of(st.none(), _text),
        "xUnknown": st.one_of(st.integers(), _text, st.lists(st.integers(), max_size=3)),
    },
)


@given(_records)
def test_well_typed_records_round_trip(data):
    rec = JobRecord.from_json(data)
    out = rec.to_json()
    for key, value in data.items():
        assert out[key] == value, key
    assert JobRecord.from_json(json.loads(json.dumps(out))) == rec


@given(_records, st.sampled_from(REQUIRED), st.sampled_from([True, 1.5, [], {}, "s", 3]))
def test_mutated_records_are_either_read_exactly_or_rejected(data, key, value):
    data = {**data, key: value}
    try:
        rec = JobRecord.from_json(data)
    except RecordError:
        return
    # Accepted: the value had the field's type and survives (timestamps as whole ms).
    expected = int(value) if key in ("startedAt", "finishedAt") else value
    assert rec.to_json()[key] == expected
    assert not (isinstance(value, bool) and key not in ("detached", "wake", "seen"))


# -- outcome -----------------------------------------------------------------------------


def signal_name(number: int) -> str:
    return signal.Signals(number).name


@pytest.mark.parametrize(
    ("status", "name"), [(-9, "SIGKILL"), (-15, "SIGTERM"), (-2, "SIGINT"), (-1, "SIGHUP")]
)
def test_death_by_signal_is_killed_with_its_name(status, name):
    assert outcome(status, None, None, signal_name) == (JobStatus.KILLED, None, name)
    # The signal that actually killed it wins over the one requested.
    assert outcome(status, "kill", "SIGINT", signal_name) == (JobStatus.KILLED, None, name)


@pytest.mark.parametrize("reason", ["kill", "deadline", "owner-gone"])
@pytest.mark.parametrize("code", [0, 1, 130, 143])
def test_ended_by_us_is_killed_even_after_a_trapped_exit(reason, code):
    assert outcome(code, reason, "SIGINT", signal_name) == (JobStatus.KILLED, None, "SIGINT")
    assert outcome(code, reason, None, signal_name) == (JobStatus.KILLED, None, "SIGTERM")


@pytest.mark.parametrize("reason", [EndReason.KILL, EndReason.DEADLINE, EndReason.OWNER_GONE])
def test_end_reason_enum_members_work_too(reason):
    assert outcome(0, reason, "SIGKILL", signal_name)[0] is JobStatus.KILLED


@pytest.mark.parametrize("reason", [None, "exit", EndReason.EXIT])
def test_exit_zero_is_exited(reason):
    assert outcome(0, reason, None, signal_name) == (JobStatus.EXITED, 0, None)


@pytest.mark.parametrize("code", [1, 2, 127, 255])
@pytest.mark.parametrize("reason", [None, "exit"])
def test_non_zero_is_failed(code, reason):
    assert outcome(code, reason, None, signal_name) == (JobStatus.FAILED, code, None)


@pytest.mark.parametrize("reason", [None, "exit", "kill", "deadline", "owner-gone"])
def test_no_status_is_unknown(reason):
    assert outcome(None, reason, "SIGKILL", signal_name) == (JobStatus.UNKNOWN, None, None)


def test_signal_name_callback_gets_the_positive_number():
    seen = []
    outcome(-42, None, None, lambda n: seen.append(n) or f"SIG{n}")
    assert seen == [42]


def test_ended_at_prefers_finished_at():
    rec = JobRecord.from_json(reference_record(startedAt=10, finishedAt=25))
    assert rec.ended_at() == 25
    rec.finished_at = None
    assert rec.ended_at() == 10
