"""One tab of `jobs-tui serve`: its app process, and the server's handle on it.

`TabApp` (textual-serve's AppService) runs `python -m jobs_tui.app.serve.tab --app DIR`
in its own process session, with the server's cwd and environment, and closes it the
way closing the tab does (quit; then TERM, then KILL). `app_main` is that process: the
`jobs-tui` app on textual's web driver, which dies with the server however it goes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from ..errors import EXIT_ERROR, EXIT_USAGE
from .token import ENV as TOKEN_ENV

if TYPE_CHECKING:
    from .server import Options

APP_CLOSE_SECONDS = 15.0  # a tab's app kills its own running jobs on close (kill grace)


def dimension(text: object, default: int) -> int:
    """A terminal size sent by a browser, kept within 1-1000 cells."""
    try:
        return max(1, min(int(text or default), 1000))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return default


def tab_app_class() -> type:
    """`TabApp`, made when serving starts: no other verb loads textual-serve."""
    from textual_serve.app_service import AppService

    class TabApp(AppService):
        """One tab's app: our command, in its own process session, closed within a bound."""

        def __init__(self, options: Options, **kwargs: Any) -> None:
            super().__init__(" ".join(options.app_command()), **kwargs)
            self.options = options

        async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
            env = self._build_environment(width=width, height=height)
            env.pop(TOKEN_ENV, None)  # `choose` took it out already; never pass it on
            self._process = process = await asyncio.create_subprocess_exec(
                *self.options.app_command(),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=self.options.cwd,
                start_new_session=True,  # the terminal's Ctrl-C is the server's to handle
            )
            self._stdin = process.stdin
            return process

        async def handle(self, envelope: Any, websocket: Any) -> None:
            if not isinstance(envelope, list) or not envelope:
                return
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                await self.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await self.set_terminal_size(
                    dimension(data.get("width"), 80), dimension(data.get("height"), 24)
                )
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await self.blur()
            elif kind == "focus":
                await self.focus()

        async def close(self) -> None:
            """Ask the app to quit (it closes its session), then TERM, then KILL."""
            process = self._process
            if process is None or process.returncode is not None:
                return
            with contextlib.suppress(Exception):
                await self.send_meta({"type": "quit"})
            for sig in (None, signal.SIGTERM, signal.SIGKILL):
                if sig is not None:
                    with contextlib.suppress(ProcessLookupError):
                        process.send_signal(sig)
                try:
                    await asyncio.wait_for(process.wait(), APP_CLOSE_SECONDS if sig is None else 3)
                    break
                except TimeoutError:
                    continue
            if self._task is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._task, 3)

    return TabApp


def _die_with_parent() -> None:
    """SIGTERM when the server goes, however it goes (the web driver exits on SIGTERM)."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
            return
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    import threading

    threading.Thread(target=watch, daemon=True).start()


def app_main(argv: list[str]) -> int:
    """`python -m jobs_tui.app.serve.tab --app REGISTRY_DIR`: the app, as textual-serve runs it."""
    if len(argv) != 2 or argv[0] != "--app":
        sys.stderr.write("usage: python -m jobs_tui.app.serve.tab --app REGISTRY_DIR\n")
        return EXIT_USAGE
    _die_with_parent()
    if os.getppid() == 1:
        return EXIT_ERROR
    from ..tui import run_tui

    return run_tui(registry_dir=argv[1], door="browser")


if __name__ == "__main__":
    sys.exit(app_main(sys.argv[1:]))
