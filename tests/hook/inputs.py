"""Hook input JSON as each client writes it on the hook's stdin (from their packages:
Claude Code's hook input schemas in its binary, Codex's `*.command.input` JSON Schemas
in its binary, Gemini CLI's docs/hooks/reference.md and its hook runner)."""

from __future__ import annotations

from typing import Any

EVENT_NAMES = {
    "claude": {"prompt": "UserPromptSubmit", "tool": "PostToolUse", "stop": "Stop"},
    "codex": {"prompt": "UserPromptSubmit", "tool": "PostToolUse", "stop": "Stop"},
    "gemini": {"prompt": "BeforeAgent", "tool": "AfterTool", "stop": "AfterAgent"},
}


def hook_input(client: str, event: str, cwd: str, stop_hook_active: bool = False) -> dict[str, Any]:
    name = EVENT_NAMES[client][event]
    base: dict[str, Any] = {
        "session_id": "5b0c2f3e-1111-4c2d-9e8f-000000000001",
        "transcript_path": f"{cwd}/transcript.jsonl",
        "cwd": cwd,
        "hook_event_name": name,
    }
    if client == "codex":
        base |= {"model": "gpt-5-codex", "permission_mode": "default", "turn_id": "turn-1"}
    if client == "claude":
        base["permission_mode"] = "default"
    if client == "gemini":
        base["timestamp"] = "2026-12-01T23:00:00.000Z"
    if event == "prompt":
        base["prompt"] = "carry on"
    elif event == "tool":
        base |= {
            "tool_name": "run_shell_command" if client == "gemini" else "Bash",
            "tool_input": {"command": "ls"},
            "tool_response": {"stdout": "a\nb\n"} if client != "gemini" else {"llmContent": "a"},
        }
        if client in ("claude", "codex"):
            base["tool_use_id"] = "toolu_01"
    else:
        base["stop_hook_active"] = stop_hook_active
        if client == "gemini":
            base |= {"prompt": "build it", "prompt_response": "started the build"}
        else:
            base["last_assistant_message"] = "started the build"
    return base
