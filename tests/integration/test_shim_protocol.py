"""The shim's control socket under hostile or sloppy clients."""

from __future__ import annotations

import json
import os
import socket
import stat

from jobs_tui.engine import JobManager


def _exchange(path: str, payload: bytes) -> list[dict]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect(path)
        sock.sendall(payload)
        sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return [json.loads(line) for line in data.splitlines()]


async def test_malformed_requests_get_errors_and_the_shim_keeps_serving(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("sleep 30")
        path = str(jm.paths.socket(rec.id))
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        replies = _exchange(
            path,
            b'not json\n[1, 2]\n{"op": "explode"}\n{"op": "kill", "signal": "SIGFOO"}\n'
            b'{"op": "state"}\n',
        )
        assert [r.get("ok") for r in replies[:4]] == [False, False, False, False]
        assert "bad request" in replies[0]["error"] and "unknown op" in replies[2]["error"]
        assert replies[4]["running"] is True and replies[4]["pid"] == rec.pid
        assert jm.registry.get(rec.id).running
        result = await jm.kill(rec.id, "SIGKILL")
        assert result.job.signal == "SIGKILL"
