"""Which `jobs-tui mcp` server is this hook's agent's: the rule, over process chains (pure).

An agent client (claude, codex, gemini) spawns both its MCP servers and its hook commands
(through `sh -c`). So a hook and a server belong to the same agent when their nearest
common ancestor is that client: the nearest ancestor of each that is not a launcher
(a shell, `env`, `uv`, ...) is one and the same process, the same pid with the same start
token. Not any common ancestor: two agents started from one shell share that shell, the
person's screen and CLI calls share it too, and an agent run by another agent's tool has
that agent as an ancestor; each of those has another process (its own client) on the way.
"""

from __future__ import annotations

from .proctree import Proc

# Processes that only start another command: a hook or server may sit behind them.
LAUNCHERS = frozenset(
    {
        "sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "yash", "fish", "tcsh", "csh",
        "busybox", "env", "nice", "nohup", "setsid", "stdbuf", "timeout", "time",
        "uv", "uvx", "pipx",
    }
)  # fmt: skip


def is_launcher(name: str) -> bool:
    base = name.rsplit("/", 1)[-1].lower()
    return base in LAUNCHERS or base.lstrip("-") in LAUNCHERS  # `-bash`: a login shell


def agent_of(chain: list[Proc]) -> Proc | None:
    """The agent process above a hook or a server: its nearest ancestor that is not a
    launcher (`chain` is parent first, as `proctree.ancestors` returns it)."""
    for proc in chain:
        if not is_launcher(proc.name):
            return proc
    return None


def same_process(a: tuple[int, str] | None, b: tuple[int, str] | None) -> bool:
    return a is not None and b is not None and a == b
