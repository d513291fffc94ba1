"""Removing what the registry directory no longer needs: a removed record's files and
log, and temporary files a crashed writer left behind."""

from __future__ import annotations

import os
import time
from pathlib import Path

from .model import JobRecord
from .paths import RegistryPaths

STALE_TMP_S = 60.0


def delete_job_files(paths: RegistryPaths, record: JobRecord) -> None:
    """The job's files and both log segments (the log only inside the registry directory)."""
    for path in paths.job_files(record.id):
        path.unlink(missing_ok=True)
    log = paths.inside(record.log_path)
    if log is not None:
        log.unlink(missing_ok=True)
        Path(str(log) + ".1").unlink(missing_ok=True)


def remove_stale_temp_files(root: Path) -> None:
    """`.*.tmp` files older than STALE_TMP_S: an atomic write that never got renamed."""
    now = time.time()
    try:
        names = os.listdir(root)
    except FileNotFoundError:
        return
    for name in names:
        if name.startswith(".") and name.endswith(".tmp"):
            path = root / name
            try:
                if now - path.lstat().st_mtime > STALE_TMP_S:
                    path.unlink()
            except OSError:
                continue
