"""A `serve` tab is a supervising screen: closing it ends only the jobs it started.

Closing a tab is not `q`: textual-serve asks the tab's app to exit (textual's ExitApp,
no dialog), then TERM, then KILL. A job the tab took over with `t` (a REPL someone is
using) must outlive the tab, and a command-line job it only looked at or acted on stays
the command line's; a job the tab started itself (here: a restart) ends with it.
"""

from __future__ import annotations

import asyncio
import json

import aiohttp

from .conftest import TOKEN, Served, until


class Painted:
    """What a tab's app paints, escapes removed; each wait looks only past the last one."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.text = ""
        self.mark = 0

    async def until(self, words: str, timeout: float = 30) -> None:
        from .browser import ESCAPE

        async with asyncio.timeout(timeout):
            while words not in self.text[self.mark :]:
                message = await self.ws.receive()
                if isinstance(message.data, bytes):
                    painted = message.data.decode("utf-8", "replace")
                    self.text += ESCAPE.sub("", painted)
        self.mark = self.text.index(words, self.mark) + len(words)


def test_closing_a_tab_ends_what_it_started_and_leaves_cli_jobs_running(
    served: Served, cli
) -> None:
    cli.ok("start", "--label", "their repl", "--", "sleep 300")  # j1: taken over in the tab
    cli.ok("start", "--label", "their build", "--", "sleep 300")  # j2: restarted in the tab
    cli.ok("kill", "j2")
    cli.ok("start", "--label", "their server", "--", "sleep 300")  # j3: only looked at

    async def use_a_tab() -> list:
        async with aiohttp.ClientSession() as session:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            async with session.ws_connect(served.ws, headers=headers) as ws:
                await ws.send_json(["resize", {"width": 120, "height": 30}])
                screen = Painted(ws)
                await screen.until("their build")
                await ws.send_json(["stdin", "g"])  # the first row: j3, the newest running
                await ws.send_json(["stdin", "j"])  # then j1
                await ws.send_json(["stdin", "t"])
                await screen.until("Take over j1")
                await ws.send_json(["stdin", "y"])
                await screen.until("is now this session's job")
                await ws.send_json(["stdin", "G"])  # the last row: j2, killed
                await ws.send_json(["stdin", "r"])
                await screen.until("j2 restarted as j4")
                apps = served.apps()
                assert len(apps) == 1
            return apps  # the tab is closed here

    apps = asyncio.run(use_a_tab())
    assert until(lambda: not any(app.is_running() for app in apps), 30)
    listed = {j["id"]: j for j in json.loads(cli.ok("list", "--all", "--json").out)["jobs"]}
    assert listed["j1"]["status"] == "running"  # taken over by the tab, not killed with it
    assert listed["j3"]["status"] == "running" and listed["j3"]["sessionId"] == "cli"
    assert listed["j4"]["status"] == "killed"  # the tab's own restart ended with the tab
