"""The registry on disk: parse, atomic write, load-all, corrupt-file quarantine."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jobs_tui.engine.registry import store
from jobs_tui.engine.registry.store import (
    CorruptRegistry,
    load_all,
    parse_registry,
    quarantine,
    write_json_atomic,
)


def record(job_id: str = "j1", **overrides) -> dict:
    data = {
        "id": job_id,
        "label": "build",
        "command": "make",
        "cwd": "/src",
        "pid": 100,
        "status": "running",
        "exitCode": None,
        "signal": None,
        "startedAt": 1000,
        "finishedAt": None,
        "logPath": f"/reg/{job_id}.log",
        "detached": False,
        "wake": False,
        "sessionId": "s1",
        "seen": False,
        "lastLine": "",
        "statusPath": None,
        "startToken": None,
    }
    data.update(overrides)
    return data


def registry(session_id: str = "s1", counter: int = 2, jobs=None, **extra) -> dict:
    return {
        "version": 1,
        "sessionId": session_id,
        "counter": counter,
        "jobs": [record()] if jobs is None else jobs,
        **extra,
    }


def raw(data) -> bytes:
    return json.dumps(data).encode()


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


# -- parse_registry ----------------------------------------------------------------------


def test_parse_a_registry_file():
    parsed = parse_registry(
        raw(registry(jobs=[record("j1"), record("j2", status="exited", exitCode=0)]))
    )
    assert parsed.session_id == "s1"
    assert parsed.counter == 2
    assert [j.id for j in parsed.jobs] == ["j1", "j2"]
    assert parsed.skipped == []
    assert parsed.unknown == {}


@pytest.mark.parametrize(
    "data",
    [b"", b"{", b"not json", b'{"jobs": [}', b"\xff\xfe\x00", b"[" * 100_000, b"{} {}"],
)
def test_invalid_json_is_corrupt(data):
    with pytest.raises(CorruptRegistry):
        parse_registry(data)


@pytest.mark.parametrize("data", [b"[]", b"null", b"3", b'"registry"', b"true"])
def test_non_object_is_corrupt(data):
    with pytest.raises(CorruptRegistry):
        parse_registry(data)


def test_malformed_entries_are_skipped_and_reported():
    jobs = [
        record("j1"),
        record("j2", pid="not a pid"),
        "not an object",
        record("j3", detached=1),
        {k: v for k, v in record("j4").items() if k != "command"},
        record("j5", status="exited", exitCode=0),
        record("j6", startedAt=True),
        record("bogus"),
    ]
    parsed = parse_registry(raw(registry(jobs=jobs)))
    assert [j.id for j in parsed.jobs] == ["j1", "j5"]
    assert len(parsed.skipped) == 6
    assert any("pid" in reason for reason in parsed.skipped)
    assert any("detached" in reason for reason in parsed.skipped)
    assert any("command" in reason for reason in parsed.skipped)
    assert any("startedAt" in reason for reason in parsed.skipped)


def test_non_finite_numbers_skip_the_entry_not_the_file():
    # Python's json reads NaN / Infinity / 1e400; a reader must not crash on them.
    text = raw(registry(jobs=[record("j1"), record("j2")])).decode()
    text = text.replace('"startedAt": 1000', '"startedAt": NaN', 1)
    text = text.replace('"startedAt": 1000', '"startedAt": 1e400', 1)
    parsed = parse_registry(text.encode())
    assert parsed.jobs == []
    assert len(parsed.skipped) == 2


def test_missing_optional_record_fields():
    entry = record("j1")
    del entry["statusPath"], entry["startToken"]
    parsed = parse_registry(raw(registry(jobs=[entry])))
    assert parsed.jobs[0].status_path is None and parsed.jobs[0].start_token is None


@pytest.mark.parametrize("jobs", [None, {}, "x", 3])
def test_jobs_not_a_list_reads_as_no_jobs(jobs):
    data = registry()
    data["jobs"] = jobs
    assert parse_registry(raw(data)).jobs == []


@pytest.mark.parametrize("counter", [None, "7", True, 1.5, [7]])
def test_bad_counter_reads_as_one(counter):
    assert parse_registry(raw(registry(counter=counter))).counter == 1


def test_missing_session_id():
    data = registry()
    del data["sessionId"]
    assert parse_registry(raw(data), Path("/reg/registry-abc.json")).session_id == ""
    assert parse_registry(raw(data), Path("/reg/registry.json")).session_id == "legacy"


def test_unknown_fields_survive_a_round_trip():
    data = registry(
        jobs=[record("j1", ourFutureField={"x": [1, 2]}, other=None)],
        persistent=True,
        writer={"name": "pi", "version": "9"},
    )
    parsed = parse_registry(raw(data))
    assert parsed.unknown == {"persistent": True, "writer": {"name": "pi", "version": "9"}}
    out = parsed.to_json()
    assert out["persistent"] is True
    assert out["writer"] == {"name": "pi", "version": "9"}
    assert out["jobs"][0]["ourFutureField"] == {"x": [1, 2]}
    assert "other" in out["jobs"][0]
    assert out["version"] == 1 and out["sessionId"] == "s1" and out["counter"] == 2
    again = parse_registry(raw(out))
    assert again.jobs == parsed.jobs
    assert again.unknown == parsed.unknown


def test_core_keys_are_not_taken_from_unknown():
    parsed = parse_registry(raw(registry(version=99)))
    assert "version" not in parsed.unknown
    assert parsed.to_json()["version"] == 1


def test_every_reference_field_survives_a_round_trip():
    original = registry(
        jobs=[
            record(
                "j3",
                status="failed",
                exitCode=2,
                finishedAt=2000,
                statusPath="/reg/j3.status",
                startToken="tok",
            )
        ]
    )
    out = parse_registry(raw(original)).to_json()
    for key, value in original["jobs"][0].items():
        assert out["jobs"][0][key] == value, key
    for key in ("version", "sessionId", "counter"):
        assert out[key] == original[key]


_json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8))
_json = st.recursive(
    _json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(
    st.dictionaries(st.text(max_size=8), _json, max_size=4),
    st.dictionaries(st.text(max_size=8), _json, max_size=4),
)
def test_arbitrary_unknown_fields_survive(top, per_record):
    core_top = {"version", "sessionId", "counter", "jobs"}
    top = {k: v for k, v in top.items() if k not in core_top}
    entry = record("j1")
    per_record = {k: v for k, v in per_record.items() if k not in entry}
    parsed = parse_registry(raw({**registry(jobs=[{**entry, **per_record}]), **top}))
    out = json.loads(json.dumps(parsed.to_json()))
    for key, value in top.items():
        assert out[key] == value
    for key, value in per_record.items():
        if key in parsed.jobs[0].to_json() and key not in parsed.jobs[0].unknown:
            continue  # one of our own extra fields, typed by the model
        assert out["jobs"][0][key] == value


@given(st.binary(max_size=200))
def test_parse_never_raises_anything_but_corrupt(data):
    try:
        parse_registry(data)
    except CorruptRegistry:
        pass


# -- write_json_atomic -------------------------------------------------------------------


def test_write_and_read_back(tmp_path):
    path = tmp_path / "registry-x.json"
    write_json_atomic(path, registry())
    assert json.loads(path.read_text()) == registry()
    assert parse_registry(path.read_bytes()).jobs[0].id == "j1"


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_written_file_is_0600(tmp_path, umask):
    path = tmp_path / "registry-x.json"
    old = os.umask(umask)
    try:
        write_json_atomic(path, {"a": 1})
    finally:
        os.umask(old)
    assert _mode(path) == 0o600


def test_rewrite_replaces_a_looser_file_with_0600(tmp_path):
    path = tmp_path / "registry-x.json"
    path.write_text("{}")
    os.chmod(path, 0o644)
    write_json_atomic(path, {"b": 2}, durable=False)
    assert _mode(path) == 0o600
    assert json.loads(path.read_text()) == {"b": 2}


def test_no_temp_files_left(tmp_path):
    path = tmp_path / "registry-x.json"
    for i in range(5):
        write_json_atomic(path, {"i": i}, durable=i % 2 == 0)
    assert os.listdir(tmp_path) == ["registry-x.json"]
    assert json.loads(path.read_text()) == {"i": 4}


def test_unicode_is_written_as_utf8(tmp_path):
    path = tmp_path / "r.json"
    write_json_atomic(path, {"lastLine": "caf\u00e9 \u2713"})
    assert "caf\u00e9 \u2713".encode() in path.read_bytes()


def test_failed_write_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "registry-x.json"
    write_json_atomic(path, {"old": True})

    def boom(_fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError, match="disk full"):
        write_json_atomic(path, {"new": True})
    monkeypatch.undo()
    assert json.loads(path.read_text()) == {"old": True}
    assert os.listdir(tmp_path) == ["registry-x.json"]


def test_unserialisable_data_leaves_the_old_file(tmp_path):
    path = tmp_path / "registry-x.json"
    write_json_atomic(path, {"old": True})
    with pytest.raises(TypeError):
        write_json_atomic(path, {"bad": object()})
    assert json.loads(path.read_text()) == {"old": True}
    assert os.listdir(tmp_path) == ["registry-x.json"]


# -- quarantine --------------------------------------------------------------------------


def test_quarantine_renames_in_place(tmp_path):
    path = tmp_path / "registry-abc.json"
    path.write_bytes(b"{garbage")
    moved = quarantine(path)
    assert moved is not None
    assert moved.parent == tmp_path
    assert moved.name.startswith("registry-abc.json.corrupt-")
    assert moved.name.rsplit("-", 1)[1].isdigit()
    assert moved.read_bytes() == b"{garbage"
    assert not path.exists()


def test_quarantine_missing_file(tmp_path):
    assert quarantine(tmp_path / "gone.json") is None


# -- load_all ----------------------------------------------------------------------------


def test_load_all_missing_directory(tmp_path):
    loaded = load_all(tmp_path / "nope")
    assert loaded.files == [] and loaded.problems == []


def test_load_all_reads_every_session_file_and_the_legacy_one(tmp_path):
    write_json_atomic(tmp_path / "registry-aaaa.json", registry("s1", jobs=[record("j1")]))
    write_json_atomic(tmp_path / "registry-bbbb.json", registry("s2", jobs=[record("j2")]))
    legacy = registry(jobs=[record("j3")])
    del legacy["sessionId"]
    write_json_atomic(tmp_path / "registry.json", legacy)
    # Not registry files:
    write_json_atomic(tmp_path / "session-aaaa.json", {"sessionId": "s1", "pid": 1})
    (tmp_path / "j1.log").write_text("{not json")
    (tmp_path / "j1.lock").write_text("")
    (tmp_path / ".registry-aaaa.json.1.ab.tmp").write_text("{partial")
    (tmp_path / "registry-old.json.corrupt-123").write_text("{still broken")

    loaded = load_all(tmp_path)
    assert loaded.problems == []
    by_session = {f.session_id: [j.id for j in f.jobs] for f in loaded.files}
    assert by_session == {"s1": ["j1"], "s2": ["j2"], "legacy": ["j3"]}
    assert {f.path for f in loaded.files} == {
        tmp_path / "registry-aaaa.json",
        tmp_path / "registry-bbbb.json",
        tmp_path / "registry.json",
    }
    assert (tmp_path / "j1.log").read_text() == "{not json"  # untouched
    assert (tmp_path / ".registry-aaaa.json.1.ab.tmp").exists()


def _listings(monkeypatch) -> list[str]:
    """Counts the directory listings load_all makes (os.scandir of the registry)."""
    calls: list[str] = []
    real = os.scandir

    def counted(path):
        calls.append(os.fspath(path))
        return real(path)

    monkeypatch.setattr(store.os, "scandir", counted)
    return calls


def _age(path: Path, seconds: float = 5.0) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - int(seconds * 1e9)))


def test_an_unchanged_directory_is_not_listed_again_but_its_files_are_still_read(
    tmp_path, monkeypatch
):
    write_json_atomic(tmp_path / "registry-aaaa.json", registry("s1", jobs=[record("j1")]))
    _age(tmp_path)
    listed = _listings(monkeypatch)
    listing = store.Listing()
    first = load_all(tmp_path, {}, check_job_files=False, listing=listing)
    assert [f.session_id for f in first.files] == ["s1"] and len(listed) == 1
    cache: dict = {}
    again = load_all(tmp_path, cache, check_job_files=False, listing=listing)
    assert [f.session_id for f in again.files] == ["s1"] and len(listed) == 1  # not listed
    # a peer rewrites its file (a rename: the directory's mtime moves): listed again
    write_json_atomic(tmp_path / "registry-aaaa.json", registry("s1", jobs=[record("j9")]))
    write_json_atomic(tmp_path / "registry-bbbb.json", registry("s2", jobs=[record("j2")]))
    third = load_all(tmp_path, cache, check_job_files=False, listing=listing)
    assert len(listed) == 2
    assert {f.session_id: [j.id for j in f.jobs] for f in third.files} == {
        "s1": ["j9"],
        "s2": ["j2"],
    }
    # a directory changed less than a second ago is listed every time (coarse mtimes)
    load_all(tmp_path, cache, check_job_files=False, listing=listing)
    assert len(listed) == 3
    # the periodic look for planted job files always lists
    _age(tmp_path)
    load_all(tmp_path, cache, check_job_files=False, listing=listing)
    load_all(tmp_path, cache, check_job_files=True, listing=listing)
    assert len(listed) == 5
    load_all(tmp_path, cache, check_job_files=False, listing=listing)
    assert len(listed) == 5


def test_a_file_rewritten_in_place_is_read_again_without_a_listing(tmp_path, monkeypatch):
    """A writer that does not rename (the shared format says rename, but) is still seen:
    each known file is looked at (stat) on every load."""
    path = tmp_path / "registry.json"
    legacy = registry(jobs=[record("j3")])
    del legacy["sessionId"]
    write_json_atomic(path, legacy)
    _age(tmp_path)
    listed = _listings(monkeypatch)
    listing, cache = store.Listing(), {}
    load_all(tmp_path, cache, check_job_files=False, listing=listing)
    legacy["jobs"] = [record("j4")]
    path.write_text(json.dumps(legacy))  # in place: the directory's mtime does not move
    loaded = load_all(tmp_path, cache, check_job_files=False, listing=listing)
    assert [j.id for f in loaded.files for j in f.jobs] == ["j4"]
    assert len(listed) == 1


def test_corrupt_file_is_quarantined_reported_and_kept(tmp_path):
    good = tmp_path / "registry-good.json"
    bad = tmp_path / "registry-bad.json"
    write_json_atomic(good, registry("s1"))
    bad.write_bytes(b'{"version": 1, "jobs": [')
    loaded = load_all(tmp_path)

    assert [f.session_id for f in loaded.files] == ["s1"]
    assert len(loaded.problems) == 1
    assert "registry-bad.json" in loaded.problems[0]
    assert not bad.exists()
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("registry-bad.json.corrupt-")]
    assert len(kept) == 1
    assert kept[0].read_bytes() == b'{"version": 1, "jobs": ['  # never deleted
    assert kept[0].name in loaded.problems[0]

    # The quarantined file is not read (nor reported, nor renamed) again.
    again = load_all(tmp_path)
    assert again.problems == []
    assert kept[0].exists()
    assert len(list(tmp_path.iterdir())) == 2


def test_non_object_file_is_quarantined(tmp_path):
    (tmp_path / "registry-list.json").write_text("[1, 2, 3]")
    loaded = load_all(tmp_path)
    assert loaded.files == []
    assert len(loaded.problems) == 1
    assert any(p.name.startswith("registry-list.json.corrupt-") for p in tmp_path.iterdir())


def test_corrupt_adoption_claim_is_quarantined_once(tmp_path):
    claim = tmp_path / "registry-dead.json.adopting-mine"
    claim.write_text("{oops")
    first = load_all(tmp_path)
    assert len(first.problems) == 1
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 1 and ".corrupt-" in names[0]
    second = load_all(tmp_path)
    assert second.problems == []
    assert sorted(p.name for p in tmp_path.iterdir()) == names


def test_malformed_entries_are_reported_by_load_all(tmp_path):
    write_json_atomic(
        tmp_path / "registry-aaaa.json",
        registry(jobs=[record("j1"), record("j2", wake="yes"), record("j3", status="zombie")]),
    )
    loaded = load_all(tmp_path)
    assert [j.id for j in loaded.files[0].jobs] == ["j1"]
    assert len(loaded.problems) == 2
    assert all("registry-aaaa.json" in p for p in loaded.problems)
    assert any("wake" in p for p in loaded.problems)
    assert any("status" in p for p in loaded.problems)
    # Skipping is not rewriting: the file on disk still holds all three entries.
    assert len(json.loads((tmp_path / "registry-aaaa.json").read_text())["jobs"]) == 3


# -- numbers out of range (issue 9.4) --------------------------------------------------------

HUGE = "9" * 5000  # past Python's 4,300-digit int conversion limit: json raises ValueError


@pytest.mark.parametrize(
    "where",
    ['"counter": HUGE', '"extra": HUGE', '"jobs": [{"id": "j1", "pid": HUGE}]', '"x": -HUGE'],
)
def test_a_number_too_long_to_convert_makes_the_file_corrupt(where):
    text = '{"version": 1, "sessionId": "s", ' + where.replace("HUGE", HUGE) + "}"
    with pytest.raises(CorruptRegistry, match="not valid JSON"):
        parse_registry(text.encode())


@pytest.mark.parametrize("counter", [10**9 + 1, 10**12, 2**63, 10**300])
def test_a_counter_past_the_last_job_id_makes_the_file_corrupt(counter):
    with pytest.raises(CorruptRegistry, match="counter"):
        parse_registry(raw(registry(counter=counter)))


@pytest.mark.parametrize("counter", [1, 7, 10**9])
def test_counters_within_the_id_range_are_kept(counter):
    assert parse_registry(raw(registry(counter=counter))).counter == counter


@pytest.mark.parametrize(
    "field, value",
    [
        ("pid", 10**30),
        ("pid", -1),
        ("pid", 0),
        ("pid", 1),
        ("pid", 2**22 + 1),
        ("exitCode", 2**40),
        ("startedAt", -5),
        ("startedAt", 10**20),
        ("finishedAt", 1e300),
        ("shimPid", 10**12),
        ("exitStatus", -(2**40)),
        ("logBytes", -1),
        ("logBytes", 2**64),
        ("logLostBytes", 10**40),
        ("timeoutMs", 10**15),
        ("stoppingAt", -1),
    ],
)
def test_an_entry_with_a_number_out_of_range_is_skipped_and_reported(field, value):
    parsed = parse_registry(raw(registry(jobs=[record("j1", **{field: value}), record("j2")])))
    assert [j.id for j in parsed.jobs] == ["j2"]
    assert parsed.skipped == [f"field {field!r} is out of range"]
    assert parsed.lossy


def test_huge_numbers_in_a_file_on_disk_quarantine_it(tmp_path):
    bad = tmp_path / "registry-huge.json"
    bad.write_text('{"version": 1, "sessionId": "s", "counter": ' + HUGE + ', "jobs": []}')
    loaded = load_all(tmp_path)
    assert loaded.files == [] and len(loaded.problems) == 1
    assert "not valid JSON" in loaded.problems[0]
    assert not bad.exists()
    assert any(p.name.startswith("registry-huge.json.corrupt-") for p in tmp_path.iterdir())


def test_a_marker_with_numbers_out_of_range_reads_as_no_pid(tmp_path):
    from jobs_tui.engine.registry.sessions import read_marker

    path = tmp_path / "session-x.json"
    path.write_text('{"sessionId": "x", "pid": 1' + "0" * 40 + ', "updatedAt": 1e999}')
    marker = read_marker(path)
    assert marker is not None and marker.pid is None and marker.updated_at == 0
    path.write_text('{"sessionId": "x", "pid": ' + HUGE + "}")
    assert read_marker(path) is None


# -- wrong shape (issue 9.8) ------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {"foo": 1},
        {"version": 1, "sessionId": "s", "counter": 3, "jobs": {"j1": {}}},
        {"version": 1, "sessionId": 5, "counter": 3, "jobs": []},
        {"version": 1, "sessionId": "s", "counter": "3", "jobs": []},
    ],
)
def test_a_file_of_the_wrong_shape_is_lossy(data):
    parsed = parse_registry(raw(data))
    assert parsed.shape and parsed.lossy


def test_a_file_in_the_format_is_not_lossy():
    assert not parse_registry(raw(registry())).lossy
