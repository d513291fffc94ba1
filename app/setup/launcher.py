"""How a client starts this jobs-tui: the words of the command, and the hook commands.

A client runs what its config file names, with its own PATH. The bare `jobs-tui` is
written only when that name on PATH is this very install; otherwise the absolute path of
this install's console script (or `python -m jobs_tui.app.cli` when there is none), so a
client never starts another jobs-tui than the one that wrote its config.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

NAME = "jobs-tui"
HOOK_EVENTS = ("prompt", "tool", "stop")
STOP_LIMIT_S = 600  # `jobs-tui hook stop`'s own default limit (the S/K contract)
STOP_TIMEOUT_S = STOP_LIMIT_S + 60  # the client's timeout for the stop hook
# The variables jobs-tui's paths read: a client that filters the environment (Codex) is
# told to pass these, when set, so its server uses the registry the person's screen shows.
PATH_VARIABLES = (
    "JOBS_TUI_REGISTRY_DIR",
    "JOBS_TUI_CONFIG",
    "XDG_STATE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_RUNTIME_DIR",
)


def _this_script() -> list[str]:
    """The words that start this install: its console script, else the module."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == NAME and argv0.exists():
        return [str(argv0.resolve())]
    beside = Path(sys.executable).parent / NAME
    if beside.exists():
        return [str(beside.absolute())]
    return [sys.executable, "-m", "jobs_tui.app.cli"]


def launcher() -> list[str]:
    """`["jobs-tui"]` when that name on PATH is this install, else the absolute words."""
    words = _this_script()
    found = shutil.which(NAME)
    if len(words) == 1 and found is not None:
        try:
            if os.path.samefile(found, words[0]):
                return [NAME]
        except OSError:
            pass
    return words


def hook_command(words: list[str], event: str, client: str) -> str:
    """The shell line a client's hook runs: `<jobs-tui> hook EVENT --client CLIENT`."""
    return shlex.join([*words, "hook", event, "--client", client])


def path_variables_set(environ: dict[str, str] | None = None) -> list[str]:
    """The names of PATH_VARIABLES set (non-empty) in this environment, in that order."""
    env = os.environ if environ is None else environ
    return [name for name in PATH_VARIABLES if env.get(name)]
