"""Small helpers for tests that run real jobs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import psutil


def gone(pid: int) -> bool:
    """Dead, or a zombie nobody has reaped yet."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def until(predicate: Callable[[], bool], timeout: float = 10.0, step: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(step)
    return predicate()


def poll(predicate: Callable[[], bool], timeout: float = 30.0, step: float = 0.1) -> bool:
    """`until` for a test without an event loop: the predicate, retried until `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def tree(pid: int) -> list[int]:
    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []
