"""What setup added to each file, kept so `--remove` takes out that and nothing else.

One JSON file in jobs-tui's state folder (`setup.json`, 0600): per config file (by its
absolute path), whether setup created it and the folders it made, and the records of
the edits (jsonedit/tomledit). A value that was there before setup overwrote it is in its
record, so removing gives it back. Without a record (the ledger was deleted), `--remove`
finds nothing of ours to take out and says so: it never guesses.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from . import files

NAME = "setup.json"


def ledger_path() -> Path:
    from jobs_tui.engine.registry.paths import default_state_root

    return default_state_root() / NAME


def load() -> dict[str, Any]:
    path = ledger_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"version": 1, "files": {}}
    except (OSError, ValueError):
        from .model import SetupError

        raise SetupError(
            f"{path} (setup's own record) does not parse; nothing written (remove it to "
            "start over: --remove then knows nothing setup added)"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return {"version": 1, "files": {}}
    return data


def entry(ledger: dict[str, Any], path: Path) -> dict[str, Any] | None:
    return ledger["files"].get(str(path))


def save(ledger: dict[str, Any]) -> None:
    path = ledger_path()
    if not ledger["files"]:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        return
    files.make_dirs(files.missing_dirs(path))
    files.write(path, json.dumps(ledger, indent=2, ensure_ascii=False) + "\n")
    os.chmod(path, files.NEW_FILE_MODE)
