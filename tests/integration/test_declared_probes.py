"""A declared job's readiness, probed by its own shim (issue 26): `log`, `port`, `http`,
`exec`, and the limit after which it is not ready (and keeps running)."""

from __future__ import annotations

import sys

from jobs_tui.engine import JobManager

from .declared_helpers import decl, free_port, probe, read_json, record, request, until

PY = sys.executable


async def _ready(jm: JobManager, command: str, ready: dict, timeout: float = 5.0):
    rec = await jm.start(command, declared=decl("svc", ready=ready))
    assert rec.declared_name == "svc"
    await until(lambda: record(jm, rec.id).phase == "ready", timeout, "ready")
    return record(jm, rec.id)


async def test_a_log_probe_passes_on_the_line_as_it_is_written(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        command = "echo booting; sleep 0.3; printf 'ready to acc'; sleep 0.1; echo 'ept'; sleep 30"
        rec = await jm.start(
            command, declared=decl("db", ready=probe("log", "ready to accept", period_ms=1000))
        )
        assert record(jm, rec.id).phase == "starting"
        await until(lambda: record(jm, rec.id).phase == "ready", 5, "ready")
        ready = read_json(jm.paths.ready(rec.id))
        assert ready is not None and ready["ready"] is True and ready["restarts"] == 0
        assert read_json(jm.paths.started(rec.id))["pid"] == rec.pid
        assert b"ready to accept" in open(rec.log_path, "rb").read()  # noqa: SIM115
        state = request(str(jm.paths.socket(rec.id)), {"op": "state"})
        assert state["phase"] == "ready" and "log: ready to accept" in state["phaseDetail"]
        await jm.kill(rec.id)


async def test_a_port_probe_passes_once_something_listens(registry_dir: str):
    port = free_port()
    server = f"sleep 0.3; exec {PY} -m http.server {port} --bind 127.0.0.1"
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await _ready(jm, server, probe("port", port))
        assert "port" in request(str(jm.paths.socket(rec.id)), {"op": "state"})["phaseDetail"]
        await jm.kill(rec.id)


async def test_an_http_probe_passes_on_a_2xx(registry_dir: str):
    port = free_port()
    server = f"sleep 0.2; exec {PY} -m http.server {port} --bind 127.0.0.1"
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await _ready(jm, server, probe("http", f"http://127.0.0.1:{port}/"))
        await jm.kill(rec.id)


async def test_an_http_probe_fails_on_a_404(registry_dir: str):
    port = free_port()
    server = f"exec {PY} -m http.server {port} --bind 127.0.0.1"
    async with JobManager(registry_dir=registry_dir) as jm:
        ready = probe("http", f"http://127.0.0.1:{port}/missing", limit_ms=1500)
        rec = await jm.start(server, declared=decl("svc", ready=ready))
        await until(lambda: record(jm, rec.id).phase == "not-ready", 5, "not-ready")
        assert record(jm, rec.id).running
        await jm.kill(rec.id)


async def test_an_exec_probe_passes_when_its_command_exits_0(registry_dir: str, tmp_path):
    flag = tmp_path / "flag"
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await _ready(
            jm, f"sleep 0.3; touch {flag}; sleep 30", probe("exec", f"test -f {flag}")
        )
        assert flag.exists()
        await jm.kill(rec.id)


async def test_an_exec_probe_that_hangs_is_killed_after_its_timeout(registry_dir: str, tmp_path):
    flag = tmp_path / "flag"
    hang = f"test -f {flag} || sleep 30"  # hangs until the flag is there
    async with JobManager(registry_dir=registry_dir) as jm:
        ready = probe("exec", hang, timeout_ms=100)
        rec = await jm.start(f"sleep 0.5; touch {flag}; sleep 30", declared=decl("s", ready=ready))
        await until(lambda: record(jm, rec.id).phase == "ready", 5, "ready after a hung probe")
        await jm.kill(rec.id)


async def test_past_its_limit_a_job_is_not_ready_and_keeps_running(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        ready = probe("log", "never printed", limit_ms=300)
        rec = await jm.start("echo hello; sleep 30", declared=decl("svc", ready=ready))
        await until(lambda: record(jm, rec.id).phase == "not-ready", 3, "not-ready")
        file = read_json(jm.paths.ready(rec.id))
        assert file is not None and file["ready"] is False and "0.3s" in file["detail"]
        assert record(jm, rec.id).running
        killed = await jm.kill(rec.id)
        assert killed.job.status.value == "killed"


async def test_a_job_without_a_probe_is_ready_once_started(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("sleep 30", declared=decl("w"))
        await until(lambda: record(jm, rec.id).phase == "ready", 3, "ready")
        assert read_json(jm.paths.ready(rec.id))["ready"] is True
        await jm.kill(rec.id)


async def test_a_declaration_the_shim_cannot_run_fails_the_start(registry_dir: str):
    from jobs_tui.engine.records.results import JobError

    async with JobManager(registry_dir=registry_dir) as jm:
        for bad in (
            decl("x", ready=probe("smoke", "x")),
            decl("x", ready=probe("port", "eighty")),
            decl("x", restart="sometimes"),
            decl("x", stop_signal="SIGNOPE"),
        ):
            try:
                await jm.start("echo never", declared=bad)
            except JobError as exc:
                assert "supervisor could not start" in str(exc)
            else:
                raise AssertionError(f"started with {bad}")
        assert all(not r.running for r in jm.registry.own_running())
