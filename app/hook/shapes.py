"""Each client's hook input and output, as its package defines them: pure functions.

Where they come from (the installed npm packages):
- Claude Code 2.1.197 (`bin/claude.exe`, a compiled bundle; grep for the zod schemas):
  input `{hook_event_name: "UserPromptSubmit" | "PostToolUse" | "Stop", stop_hook_active,
  session_id, cwd, ...}`; output `{hookSpecificOutput: {hookEventName, additionalContext}}`
  for UserPromptSubmit and PostToolUse, `{decision: "block", reason}` for Stop (the reason
  goes to the model as the next turn's prompt), `systemMessage` shown to the user.
- Codex 0.171.0 (the native binary's embedded `user-prompt-submit.command.output`,
  `post-tool-use.command.output`, `stop.command.output`, `stop.command.input` JSON
  Schemas): the same field names, `additionalProperties: false` (so nothing else).
- Gemini CLI 0.61.0 (`bundle/docs/hooks/reference.md`, the hook runner in the bundle):
  events BeforeAgent, AfterTool, AfterAgent; `hookSpecificOutput.additionalContext`
  (appended to the prompt, or to the tool result); AfterAgent's `decision: "block"`
  (alias of "deny") with `reason` sent to the agent as a new prompt; `stop_hook_active`.
Every client parses stdout as JSON on exit 0; exit 2 blocks; so output is one JSON object
or nothing at all.
"""

from __future__ import annotations

import json

EVENT_NAMES: dict[str, dict[str, str]] = {
    "claude": {"prompt": "UserPromptSubmit", "tool": "PostToolUse", "stop": "Stop"},
    "codex": {"prompt": "UserPromptSubmit", "tool": "PostToolUse", "stop": "Stop"},
    "gemini": {"prompt": "BeforeAgent", "tool": "AfterTool", "stop": "AfterAgent"},
}
MAX_INPUT = 8 * 1024 * 1024  # a tool response rides along in PostToolUse's input


class BadInput(ValueError):
    """The hook's stdin is not what this client sends for this event."""


class HookInput:
    """What we use of the input: `stop_hook_active` (a stop hook already made this agent
    go on) and the client's own session id (not ours), for messages."""

    __slots__ = ("client", "event", "session_id", "stop_hook_active")

    def __init__(
        self, client: str, event: str, stop_hook_active: bool = False, session_id: str | None = None
    ) -> None:
        self.client, self.event = client, event
        self.stop_hook_active, self.session_id = stop_hook_active, session_id


def parse_input(client: str, event: str, raw: bytes) -> HookInput:
    """The fields we use of the client's input JSON; BadInput says what is wrong."""
    if not raw.strip():
        raise BadInput("no hook input on stdin (expected the client's JSON object)")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise BadInput("the hook input on stdin is not JSON") from None
    if not isinstance(data, dict):
        raise BadInput(f"the hook input is a JSON {type(data).__name__}, not an object")
    expected = EVENT_NAMES[client][event]
    name = data.get("hook_event_name")
    if name is not None and name != expected:
        shown = name if isinstance(name, str) else type(name).__name__
        raise BadInput(
            f"the hook input is for {shown[:40]!r}, but `{event}` for {client} is {expected!r}"
        )
    active = data.get("stop_hook_active", False)
    if not isinstance(active, bool):
        raise BadInput("the hook input's stop_hook_active is not true or false")
    session = data.get("session_id")
    return HookInput(client, event, active, session if isinstance(session, str) else None)


def _dump(answer: dict) -> str:
    return json.dumps(answer, ensure_ascii=True, separators=(",", ":")) + "\n"


def context_answer(client: str, event: str, text: str) -> str:
    """`text` added to the model's context at a prompt or after a tool call."""
    if event not in ("prompt", "tool"):
        raise ValueError(f"no additional context for {event}")
    specific = {"hookEventName": EVENT_NAMES[client][event], "additionalContext": text}
    return _dump({"hookSpecificOutput": specific})


def block_answer(client: str, reason: str) -> str:
    """The stop hook's "go on": the agent takes another turn with `reason` as its prompt."""
    del client  # the same for all three (Gemini reads "block" as "deny")
    return _dump({"decision": "block", "reason": reason})


def notice_answer(client: str, message: str) -> str:
    """Let the agent stop, showing the person `message` (not the model)."""
    del client
    return _dump({"systemMessage": message})
