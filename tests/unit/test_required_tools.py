"""The screen and browser tests fail, not skip, when their tool is missing on Linux (issue 24:
a green run without them proves nothing); the browser test skips only on macOS."""

from __future__ import annotations

import pytest

from tests.serve import browser
from tests.ui.tmuxpane import require_tmux


def test_a_missing_tmux_fails_the_test(monkeypatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y tmux"):
        require_tmux()


def test_a_missing_chromium_fails_on_linux(monkeypatch) -> None:
    monkeypatch.setattr(browser.sys, "platform", "linux")
    monkeypatch.setattr(browser, "CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium"):
        browser.require_chromium()


def test_the_browser_test_skips_with_a_reason_on_macos(monkeypatch) -> None:
    monkeypatch.setattr(browser.sys, "platform", "darwin")
    with pytest.raises(pytest.skip.Exception, match="macOS"):
        browser.require_chromium()
