"""Where a client's files are for this call: the project (or the user), HOME, the words.

Project scope means the current directory's project: the nearest folder above it with
`.git`, `.hg`, `.jj` or `.jobs-tui` (the root jobs-tui keys its registry by), else the
current directory itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Where:
    user: bool  # --user: the person's own config, not the project's
    root: Path  # the project (--json names it with --user too)
    root_reason: str
    home: Path
    environ: dict[str, str]
    words: list[str]  # how to start this jobs-tui (launcher.launcher())
    trust: bool  # project scope: mark the project trusted where the client needs it
    cwd: Path | None = None  # where setup ran (None: the root itself)

    def below_root(self) -> bool:
        """Setup ran in a subfolder of the project (some clients read settings only from
        the folder they start in)."""
        return self.cwd is not None and self.cwd != self.root

    @property
    def scope(self) -> str:
        return "user" if self.user else "project"

    def xdg_config(self) -> Path:
        value = self.environ.get("XDG_CONFIG_HOME")
        return Path(value) if value and os.path.isabs(value) else self.home / ".config"


def find_root(cwd: Path) -> tuple[Path, str]:
    from jobs_tui.engine.registry.paths import PROJECT_MARKERS, project_root

    root = project_root(cwd)
    for marker in PROJECT_MARKERS:
        if os.path.lexists(root / marker):
            return root, f"the project: {marker} is there"
    return root, "the current directory: no .git, .hg, .jj or .jobs-tui above it"
