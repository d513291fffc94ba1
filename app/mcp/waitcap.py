"""How long one `job_wait` may block: under the connected client's own tool-call timeout.

A client that gives up on a call before it is answered shows its model an error, not
the job; so a wait is cut short of the client's limit and answers `reason: timeout`
with the job left running and the text saying to call job_wait again. The client is
known by `clientInfo.name` from `initialize`. Each default below was read in that
client's own code (versions of issue 23):

- Claude Code 2.1.197 (`claude-code`): `MCP_TOOL_TIMEOUT` (ms) from its environment,
  which it passes to a stdio server, else 1e8 ms (about 28 h), a hard wall-clock limit
  that progress does not extend (its idle timeout, 5 min and reset by progress, applies
  only to http/sse/ws servers). A wait never reaches 1e8 ms, so only the variable caps.
- Codex 0.171.0 (`codex-mcp-client`): `tool_timeout_sec`, default 60 s
  (`DEFAULT_TOOL_TIMEOUT` in codex-rs' MCP connection manager); progress does not extend it.
- Gemini CLI 0.61.0 (`gemini-cli-mcp-client`): the server's `timeout`, default
  `MCP_DEFAULT_TIMEOUT_MSEC` = 10 min; its callTool does not reset on progress.
- opencode 1.18.33 (`opencode`): the server's `timeout` or `experimental.mcp_timeout`,
  else the TypeScript SDK's 60 s, with `resetTimeoutOnProgress: true`: while our
  heartbeats (one a second, to the token it sends) flow, no limit is reached.
- Anyone else: the TypeScript SDK's `DEFAULT_REQUEST_TIMEOUT_MSEC`, 60 s, which most
  clients keep.

A wait is capped at 90% of the limit (54 s of 60), and not at all when the limit is
beyond the longest wait (10 min). Settings we cannot see (Codex's `tool_timeout_sec`,
Gemini CLI's `timeout`) are taken at their defaults: a longer one only costs another call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

MARGIN = 0.9  # of the client's limit: room for the answer to travel and be read
TYPESCRIPT_SDK_S = 60.0  # @modelcontextprotocol/sdk's DEFAULT_REQUEST_TIMEOUT_MSEC
DEFAULT_CAP_S = round(TYPESCRIPT_SDK_S * MARGIN, 3)
LONGEST_WAIT_S = 600.0  # callschema.MAX_WAIT_MS


@dataclass(frozen=True)
class ClientTimeout:
    """A client's tool-call limit: its default, whether progress resets it, and the
    environment variable (milliseconds) that sets it, if the server can see one."""

    seconds: float
    resets_on_progress: bool = False
    env: str | None = None
    min_ms: int = 0  # values of `env` below this are ignored by the client


CLIENT_TIMEOUTS: dict[str, ClientTimeout] = {
    "claude-code": ClientTimeout(1e8 / 1000, env="MCP_TOOL_TIMEOUT", min_ms=1000),
    "codex-mcp-client": ClientTimeout(60.0),
    "gemini-cli-mcp-client": ClientTimeout(600.0),
    "opencode": ClientTimeout(TYPESCRIPT_SDK_S, resets_on_progress=True),
}


def client_limit_s(client: str | None, env: Mapping[str, str]) -> ClientTimeout | None:
    """The client's limit as this server sees it; None for a client we do not know."""
    known = CLIENT_TIMEOUTS.get(client or "")
    if known is None or known.env is None:
        return known
    try:
        ms = int(env.get(known.env, "").strip())
    except ValueError:
        return known  # the client ignores what it cannot parse, and so do we
    if ms <= 0 or ms < known.min_ms:
        return known
    return ClientTimeout(ms / 1000, known.resets_on_progress, known.env, known.min_ms)


def wait_cap_s(client: str | None, progress: bool, env: Mapping[str, str]) -> float | None:
    """Seconds a wait may block for this client (None: no cap under the longest wait);
    `progress`: the call carries a progress token, so heartbeats go to it."""
    limit = client_limit_s(client, env)
    if limit is None:
        return DEFAULT_CAP_S
    if limit.resets_on_progress and progress:
        return None
    cap = round(limit.seconds * MARGIN, 3)
    return None if cap >= LONGEST_WAIT_S else cap
