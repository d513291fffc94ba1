"""Debian's chromium driven by Playwright with the system executable (no browser download)."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ESCAPE = re.compile(
    r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[P_^][^\x1b]*\x1b\\|.)"
)


def require_chromium() -> None:
    """A missing browser fails the test (CI installs it); a skip only where Debian's
    chromium cannot be installed at all (macOS)."""
    if sys.platform == "darwin":
        pytest.skip("the browser test drives Debian's chromium, which macOS cannot install")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} is missing: the browser test needs Debian's chromium "
            "(apt-get install -y chromium; .ci/run installs it). Never `playwright install`."
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.fail("the Python package playwright is missing: pip install -e '.[test]'")


def launch(playwright: Any, profile: str) -> Any:
    """A persistent context on a fresh user-data dir: one browser, its own profile."""
    return playwright.chromium.launch_persistent_context(
        profile,
        executable_path=CHROMIUM,
        args=ARGS,
        headless=True,
        viewport={"width": 1200, "height": 700},
    )


@dataclass
class Screen:
    """What the app sent the page: the websocket's frames, as text without escapes."""

    frames: list[str] = field(default_factory=list)

    def watch(self, page: Any) -> None:
        page.on("websocket", lambda ws: ws.on("framereceived", self._received))

    def _received(self, payload: Any) -> None:
        if isinstance(payload, bytes):
            payload = payload.decode("utf-8", "replace")
        self.frames.append(ESCAPE.sub("", payload))

    def mark(self) -> int:
        return len(self.frames)

    def text(self, since: int = 0) -> str:
        return "".join(self.frames[since:])

    def wait_for(self, page: Any, words: str, since: int = 0, timeout: float = 30) -> float:
        """Until the page received `words` (after frame `since`); when it did."""
        found: Callable[[], bool] = lambda: words in self.text(since)  # noqa: E731
        deadline = time.monotonic() + timeout
        while not found():
            if time.monotonic() > deadline:
                tail = self.text(since)[-2000:]
                raise AssertionError(f"the page never showed {words!r}; it got: {tail!r}")
            page.wait_for_timeout(50)  # lets Playwright deliver its events
        return time.monotonic()
