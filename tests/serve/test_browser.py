"""`jobs-tui serve` in a real browser: a job started elsewhere, its log, back, the token.

Headless Debian chromium, driven by Playwright with the system executable. The app
paints on xterm.js's canvas, so what it shows is read from the websocket frames the
page received (escapes removed); the screenshot is kept as an artifact (tmp_path).
"""

from __future__ import annotations

import signal
import time

from .browser import Screen, launch, require_chromium
from .conftest import Served, until

JOB = 'for w in first second third; do echo "$w-log-line"; done; sleep 300'


def test_the_jobs_screen_in_a_browser(cli, tmp_path) -> None:
    require_chromium()
    from playwright.sync_api import sync_playwright

    from .conftest import start_server

    cli.ok("start", "--label", "browser-job", "--", JOB)
    assert until(lambda: "third-log-line" in cli.ok("logs", "j1").out)
    with sync_playwright() as playwright:
        browser = launch(playwright, str(tmp_path / "profile"))
        try:
            server = start_server(cli, "--token", "browser-token-0123456789")
            try:
                check_the_screen(server, browser, tmp_path)
                check_refusals(server, browser)
                code, err = server.stop(signal.SIGINT)
            finally:
                if server.proc.poll() is None:
                    server.proc.kill()
        finally:
            browser.close()
    assert code == 130 and "Traceback" not in err, err
    assert "running" in cli.ok("status", "j1").out  # no tab killed what it did not start


def check_the_screen(server: Served, browser, tmp_path) -> None:
    page = browser.new_page()
    screen = Screen()
    screen.watch(page)
    page.goto(server.url)
    assert page.url == server.base + "/"  # the token moved into a cookie
    painted = screen.wait_for(page, "browser-job")
    page.wait_for_function("document.body.classList.contains('-first-byte')")
    print(f"\nserve to first paint of the job's row: {painted - server.started_at:.2f}s")
    assert "Wrap" not in screen.text()  # the list (its live tail may show log lines)
    page.locator("#terminal").click()
    at = screen.mark()
    page.keyboard.press("Enter")
    screen.wait_for(page, "Wrap", since=at)  # the log pane's footer
    screen.wait_for(page, "first-log-line", since=at)  # the log pane, from the top
    screen.wait_for(page, "second-log-line", since=at)
    page.screenshot(path=str(tmp_path / "serve-log.png"))
    at = screen.mark()
    page.keyboard.press("q")
    screen.wait_for(page, "browser-job", since=at)
    screen.wait_for(page, "Quit", since=at)  # back on the list: its footer (the log pane has Back)
    shot = tmp_path / "serve-jobs.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    print(f"screenshots: {shot} and serve-log.png")
    assert len(server.apps()) == 1
    page.close()  # closing the tab ends its app, and nothing else
    assert until(lambda: server.apps() == [], 20), "the closed tab's app is still running"


def check_refusals(server: Served, browser) -> None:
    browser.clear_cookies()  # a browser that never saw the token
    page = browser.new_page()
    response = page.goto(server.base + "/")
    assert response is not None and response.status == 401
    outcome = page.evaluate(
        """url => new Promise(done => {
            const ws = new WebSocket(url);
            ws.onopen = () => done("open");
            ws.onerror = () => done("refused");
        })""",
        server.ws,
    )
    assert outcome == "refused"
    response = page.goto(server.base + "/?token=wrong-token-0123456789")
    assert response is not None and response.status == 403
    time.sleep(0.2)
    assert server.apps() == []  # nothing refused started an app
    page.close()
