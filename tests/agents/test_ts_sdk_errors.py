"""Error results reach the caller through the TypeScript SDK's own client (issue 23 B).

The MCP Inspector, on `@modelcontextprotocol/sdk`, answered `job_wait` of an unknown id and
`job_start` with `timeoutMs: -5` with `data must have required property 'action'`: the SDK
validated the error's `structuredContent` against the tool's output schema and threw, so
our message never reached the user. Here the SDK itself (from npm, run by node) spawns
`jobs-tui mcp`, lists the tools and makes the failing calls; each must come back as a
result with `isError` and our message as its text, and no SDK error.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .npm_cache import npm_package

pytestmark = pytest.mark.agents

SCRIPT = Path(__file__).with_name("ts_sdk_calls.mjs")
SDK = "@modelcontextprotocol/sdk"

FAILING = [
    ("job_wait", {"id": "j99", "timeoutMs": 0}, ["j99", "not a known job"]),
    ("job_start", {"command": "true", "timeoutMs": -5}, ["timeoutMs", "-5"]),
    ("job_frobnicate", {}, ["unknown tool", "job_frobnicate"]),
]


@pytest.fixture(scope="session")
def ts_sdk() -> Path:
    """The npm prefix holding the TypeScript SDK (major 1, what clients ship today)."""
    return npm_package("ts-sdk", SDK, 1)


def _run(ts_sdk: Path, cwd: Path, registry: Path, calls: list[dict[str, Any]]) -> dict[str, Any]:
    command = [sys.executable, "-m", "jobs_tui.app.cli", "mcp", "--registry-dir", str(registry)]
    done = subprocess.run(
        ["node", str(SCRIPT), str(ts_sdk), json.dumps(calls), "--", *command],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_typescript_sdk_hands_the_caller_each_error_message(ts_sdk: Path, tmp_path: Path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    calls = [{"name": name, "arguments": args} for name, args, _ in FAILING]
    calls.append({"name": "job_list", "arguments": {}})
    out = _run(ts_sdk, cwd, tmp_path / "registry", calls)
    assert {"job_start", "job_wait", "job_send", "job_list"} <= set(out["tools"]), out["tools"]
    answers = out["calls"]
    assert [a["name"] for a in answers] == [c["name"] for c in calls]
    for (name, _, words), answer in zip(FAILING, answers, strict=False):
        assert "thrown" not in answer, (name, answer)  # the SDK's own refusal, not our message
        result = answer["result"]
        assert result.get("isError") is True, (name, result)
        assert "structuredContent" not in result, (name, result)
        text = " ".join(c["text"] for c in result["content"] if c.get("type") == "text")
        assert all(word in text for word in words), (name, text)
    listed = answers[-1]
    assert "thrown" not in listed, listed  # a success passes the SDK's output validation too
    assert listed["result"]["structuredContent"]["jobs"] == []  # nothing was started
