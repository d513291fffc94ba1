"""An error result is its text, with no `structuredContent`, so every SDK accepts it.

The TypeScript SDK (the MCP Inspector and most clients) validates a result's
`structuredContent` against the tool's output schema even when `isError` is set; our
`{error, field, tool}` failed it (`data must have required property 'action'`) and the
message never reached the user (issue 23). The raw wire is read here, so nothing a client
library does hides what the server sent; tests/agents/ runs the TypeScript SDK itself.
"""

from __future__ import annotations

from pathlib import Path

from .raw import RawServer

FAILING_CALLS = [
    ("job_wait", {"id": "j99", "timeoutMs": 0}, ("j99",)),
    ("job_start", {"command": "true", "timeoutMs": -5}, ("timeoutMs",)),
    ("job_frobnicate", {}, ("unknown tool", "job_frobnicate", "job_start")),
    ("job_status", {"id": "j1", "action": "kill"}, ("action",)),
]


def test_error_results_carry_their_message_as_text_and_no_structured_content(
    project: tuple[str, str],
):
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        for name, arguments, words in FAILING_CALLS:
            answer = server.request("tools/call", {"name": name, "arguments": arguments})
            result = answer.get("result")
            assert result is not None, answer  # a tool result, never a protocol error
            assert result.get("isError") is True, result
            assert "structuredContent" not in result, result
            texts = [c["text"] for c in result["content"] if c.get("type") == "text"]
            assert len(texts) == 1 and all(w in texts[0] for w in words), (name, texts)
        listed = server.request("tools/call", {"name": "job_list", "arguments": {}})
        assert listed["result"]["structuredContent"]["jobs"] == []  # nothing was started
    finally:
        assert server.close() == 0


def test_an_error_about_a_job_names_the_job_in_its_text(project: tuple[str, str]):
    """The record the error once carried as structuredContent is said as its outcome line."""
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        started = server.request(
            "tools/call", {"name": "job_start", "arguments": {"command": "echo gone; exit 3"}}
        )
        job_id = started["result"]["structuredContent"]["job"]["id"]
        waited = server.request(
            "tools/call", {"name": "job_wait", "arguments": {"id": job_id, "timeoutMs": 20000}}
        )
        assert waited["result"].get("isError") is not True, waited
        for log in Path(registry).rglob(f"{job_id}.log*"):
            log.unlink()
        answer = server.request("tools/call", {"name": "job_logs", "arguments": {"id": job_id}})
        result = answer["result"]
        assert result.get("isError") is True and "structuredContent" not in result, result
        text = result["content"][0]["text"]
        assert "no longer exists" in text, text
        assert f"{job_id} " in text.splitlines()[-1] and "exit 3" in text.splitlines()[-1], text
    finally:
        assert server.close() == 0
