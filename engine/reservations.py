"""Project-wide unique job ids: `j<n>.lock` created with O_EXCL."""

from __future__ import annotations

import json
import os
import time

from .paths import RegistryPaths


def reserve(paths: RegistryPaths, first: int, session_id: str, limit: int = 100_000) -> str:
    """Claim the lowest free `j<n>` with n >= first."""
    n = max(1, first)
    for _ in range(limit):
        job_id = f"j{n}"
        try:
            fd = os.open(paths.lock(job_id), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            n += 1
            continue
        try:
            payload = {"sessionId": session_id, "pid": os.getpid(), "at": int(time.time() * 1000)}
            os.write(fd, json.dumps(payload).encode())
        finally:
            os.close(fd)
        return job_id
    raise RuntimeError("no free job id")


def release(paths: RegistryPaths, job_id: str) -> None:
    try:
        os.unlink(paths.lock(job_id))
    except FileNotFoundError:
        pass


def held_numbers(paths: RegistryPaths) -> list[int]:
    numbers: list[int] = []
    for name in os.listdir(paths.root):
        if name.startswith("j") and name.endswith(".lock") and name[1:-5].isdigit():
            numbers.append(int(name[1:-5]))
    return numbers
