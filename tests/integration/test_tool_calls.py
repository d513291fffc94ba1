"""The `job` tool through JobManager.call: JSON-ready details; bad input changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.engine.tools import JobTools

from .helpers import until


@pytest.fixture
async def jm(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as manager:
        yield manager


def _snapshot(jm: JobManager) -> tuple[list[str], str]:
    files = sorted(os.listdir(jm.dir))
    return files, jm.paths.registry_file(jm.session_id).read_text()


async def test_every_action_returns_json_ready_details(jm: JobManager):
    started = await JobTools(jm).call(
        {"action": "start", "command": "cat", "label": "c", "stdin": True}
    )
    job_id = started["job"]["id"]
    calls = [
        {"action": "list"},
        {"action": "status", "id": job_id},
        {"action": "send", "id": job_id, "input": "hi", "eof": True},
        {"action": "wait", "id": job_id, "timeoutMs": 10_000},
        {"action": "logs", "id": job_id, "lines": 5},
        {"action": "kill", "id": job_id},
        {"action": "clear"},
    ]
    for call in calls:
        details = await JobTools(jm).call(call)
        assert details["action"] == call["action"]
        json.dumps(details)
    assert started["job"]["status"] == "running" and started["job"]["stdin"] is True
    logs = await JobTools(jm).call({"action": "status", "id": job_id})
    assert logs["error"] == f"id {job_id!r} is not a known job"


@pytest.mark.parametrize(
    ("call", "field"),
    [
        ({"action": "start", "command": ""}, "command"),
        ({"action": "start", "command": "   "}, "command"),
        ({"action": "start"}, "command"),
        ({"action": "start", "command": "x" * 4001}, "command"),
        ({"action": "explode"}, "action"),
        ({}, "action"),
        ({"action": "status", "id": "j999"}, "j999"),
        ({"action": "status", "id": "nope"}, "id"),
        ({"action": "logs", "id": "j1", "lines": 0}, "lines"),
        ({"action": "logs", "id": "j1", "lines": 2001}, "lines"),
        ({"action": "send", "id": "j1", "input": "x" * 8193}, "input"),
        ({"action": "kill", "id": "j1", "signal": "SIGHUP"}, "signal"),
        ({"action": "start", "command": "true", "timeoutMs": 0}, "timeoutMs"),
        ({"action": "start", "command": "true", "timeoutMs": 86_400_001}, "timeoutMs"),
        ({"action": "wait", "id": "j1", "timeoutMs": 600_001}, "timeoutMs"),
        ({"action": "start", "command": "true", "cwd": "/no/such/dir"}, "cwd"),
        ({"action": "start", "command": "true", "colour": "red"}, "colour"),
        ({"action": "list", "command": "true"}, "command"),
        ({"action": "start", "command": "true", "stdin": "yes"}, "stdin"),
    ],
)
async def test_bad_input_names_the_field_and_changes_nothing(jm: JobManager, call, field):
    keeper = await JobTools(jm).call({"action": "start", "command": "sleep 30", "stdin": True})
    before = _snapshot(jm)
    details = await JobTools(jm).call(call)
    assert field in details["error"]
    json.dumps(details)
    assert _snapshot(jm) == before
    assert jm.registry.get(keeper["job"]["id"]).running
    assert "job" not in details or details["job"]["id"] == keeper["job"]["id"]


async def test_call_with_a_non_dict_is_an_error_not_an_exception(jm: JobManager):
    details = await JobTools(jm).call(["start"])
    assert "action" in details["error"]


async def test_deleted_log_keeps_the_job_running_and_reads_say_so(jm: JobManager):
    rec = await jm.start("while :; do echo tick; sleep 0.05; done")
    log = jm.paths.log(rec.id)
    assert await until(lambda: log.exists() and log.stat().st_size > 20, 5)
    log.unlink()
    assert await until(lambda: jm.registry.get(rec.id).log_lost_bytes > 0, 5)
    assert await until(lambda: log.exists() and log.stat().st_size > 0, 5)
    details = await JobTools(jm).call({"action": "logs", "id": rec.id})
    assert details["job"]["status"] == "running"
    assert details["truncated"] is True and "deleted" in details["note"]
    assert "tick" in details["logs"]
    await jm.kill(rec.id, "SIGKILL")
    log.unlink()
    jm.paths.previous_log(rec.id).unlink(missing_ok=True)
    gone = await JobTools(jm).call({"action": "logs", "id": rec.id})
    assert "no longer exists" in gone["error"] and gone["job"]["status"] == "killed"


async def test_log_path_outside_the_registry_is_never_opened(jm: JobManager, tmp_path):
    rec = await jm.wait((await jm.start("echo inside")).id, 5_000)
    secret = tmp_path / "secret.log"
    secret.write_text("do not read\n")
    jm.registry.get(rec.id).log_path = str(secret)
    details = await JobTools(jm).call({"action": "logs", "id": rec.id})
    assert "outside the registry directory" in details["error"]
    assert "logs" not in details


CAPTURE = textwrap.dedent(
    """
    import asyncio, sys
    from jobs_tui.engine import JobManager
    async def main():
        jm = JobManager(registry_dir=sys.argv[1], session_id="capture", persistent=True)
        await jm.open()
        rec = await jm.start("sleep 30; echo never")
        print(rec.id)
        await jm.close()
    asyncio.run(main())
    """
)


async def test_command_substitution_gets_control_back_while_the_job_runs(registry_dir: str):
    started = time.monotonic()
    out = subprocess.run(
        [
            "bash",
            "-c",
            f'id=$("{sys.executable}" -c "$0" "$1"); echo "got $id"',
            CAPTURE,
            registry_dir,
        ],
        capture_output=True,
        text=True,
        timeout=25,
    )
    assert out.stdout.strip() == "got j1", out.stderr
    assert time.monotonic() - started < 25
    async with JobManager(registry_dir=registry_dir, session_id="capture", persistent=True) as jm:
        assert jm.registry.get("j1").running
        await jm.kill("j1", "SIGKILL")


def test_engine_import_loads_no_ui_toolkit():
    code = (
        "import sys, jobs_tui.engine as e; e.JobManager; e.Config; "
        "import jobs_tui.engine.shim.main; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')); "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_shim_imports_no_asyncio_and_engine_import_is_lazy():
    code = (
        "import sys, jobs_tui.engine.shim.main; a = 'asyncio' in sys.modules; "
        "import jobs_tui.engine as e; "
        "print(a, 'jobs_tui.engine.session.manager' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
