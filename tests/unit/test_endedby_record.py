"""`endedBy` on a record (issue 27, feature 3): sparse, round-trips, a malformed one is kept
as it was, an old record without it still loads; and its faces (status words, the detail
pane, the model's view), sanitized."""

from __future__ import annotations

from jobs_tui.app.mcp.modelview import model_job
from jobs_tui.app.verbs import human
from jobs_tui.engine.records import format as fmt
from jobs_tui.engine.records.endedby import EndedBy
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.registry.exitfiles import ExitInfo, end_extras
from jobs_tui.engine.registry.reconcile import finish
from jobs_tui.engine.shim import procs
from jobs_tui.screens.jobs.detail import detail_of

from .test_model import reference_record


def _killed(**ended: object) -> dict:
    data = reference_record(status="killed", exitCode=None, signal="SIGKILL")
    data["endedBy"] = {"by": "kernel-oom", "signal": "SIGKILL", **ended}
    return data


def test_an_old_record_without_it_loads_and_is_written_as_it_was():
    data = reference_record()
    record = JobRecord.from_json(data)
    assert record.ended_by is None
    assert "endedBy" not in record.to_json()


def test_it_round_trips_and_unknown_fields_survive():
    data = {**_killed(), "futureField": {"x": 1}}
    record = JobRecord.from_json(data)
    assert record.ended_by == EndedBy("kernel-oom", "SIGKILL")
    out = record.to_json()
    assert out["endedBy"] == {"by": "kernel-oom", "signal": "SIGKILL"}
    assert out["futureField"] == {"x": 1}
    assert JobRecord.from_json(out).to_json() == out


def test_a_malformed_one_is_not_trusted_and_kept_as_it_was():
    for bad in ("oom", {"signal": "SIGKILL"}, [1], {"by": 3}):
        data = {**reference_record(), "endedBy": bad}
        record = JobRecord.from_json(data)
        assert record.ended_by is None
        assert record.to_json()["endedBy"] == bad


def test_finish_fills_it_from_the_end_and_the_kill_request():
    record = JobRecord.from_json(reference_record(status="running", exitCode=None))
    end = {"killedBy": {"door": "mcp", "session": "mcp-1", "signal": "SIGTERM"}}
    info = ExitInfo(-15, "kill", "SIGTERM", 1, **end_extras(end))
    finish(record, info, 2, procs.signal_name)
    assert record.ended_by == EndedBy("request", "SIGTERM", None, "mcp", "mcp-1")
    unknown = JobRecord.from_json(reference_record(status="running", exitCode=None))
    finish(unknown, None, 2, procs.signal_name)
    assert unknown.ended_by == EndedBy("unknown")


def test_the_ends_fields_are_bounded_and_typed():
    assert end_extras({"oomKill": {"source": "cgroup", "kills": 0}}) == {}
    assert end_extras({"oomKill": {"source": "machine", "kills": 2}}) == {"oom_source": "machine"}
    assert end_extras({"killedBy": {"door": 1, "session": "x" * 999}}) == {}
    assert end_extras({"killedBy": "cli"}) == {}


def test_the_outcome_line_says_the_kernel_and_status_says_who():
    record = JobRecord.from_json(_killed())
    assert "■ killed · SIGKILL · by the kernel: out of memory · " in fmt.outcome(record, 0)
    assert human.ended_line(record) == "ended  killed · SIGKILL · by the kernel: out of memory"


def test_a_hostile_session_name_is_sanitized_everywhere():
    data = reference_record(status="killed", exitCode=None, signal="SIGTERM")
    data["endedBy"] = {
        "by": "request",
        "signal": "SIGTERM",
        "door": "cli",
        "session": "\x1b]0;x\x07ab",
    }
    record = JobRecord.from_json(data)
    assert "\x1b" not in (human.ended_line(record) or "")
    detail = detail_of(record, 0, peer=False)
    ended = [f for f in detail.fields if f.name == "ended"]
    assert ended and "\x1b" not in ended[0].value and "by the command line" in ended[0].value
    view = model_job(data, 0)
    assert view["endedBy"]["door"] == "cli" and "\x1b" not in view["endedBy"]["session"]


def test_a_running_job_shows_none():
    record = JobRecord.from_json(reference_record(status="running", exitCode=None))
    record.ended_by = EndedBy("self", exit_code=0)
    assert human.ended_line(record) is None
    assert not [f for f in detail_of(record, 0, peer=False).fields if f.name == "ended"]


def test_a_peers_running_record_is_viewed_with_who_ended_it(tmp_path):
    import json

    from jobs_tui.engine.registry.paths import RegistryPaths
    from jobs_tui.engine.registry.peerview import settle_view

    paths = RegistryPaths(str(tmp_path))
    paths.status("j7").write_text("-9\n")
    paths.end("j7").write_text(
        json.dumps({"reason": "exit", "oomKill": {"source": "cgroup", "kills": 1}})
    )
    record = JobRecord.from_json(
        reference_record(status="running", exitCode=None, statusPath=None, pid=None)
    )
    settle_view(paths, record, lambda _m: None)
    assert record.ended_by == EndedBy("kernel-oom", "SIGKILL")
