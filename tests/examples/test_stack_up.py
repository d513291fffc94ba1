"""The sample project (examples/stack/) comes up with `jobs-tui up --detach` and down with
`jobs-tui down`, as its jobs-tui.toml, as its process-compose.yaml and as its Procfile
(issue 26, "Done when"): the database stand-in ready on its log line, the API on its
port (its URL for process-compose), the worker's crash loop told as a finish. The API's
port is swapped for a free one, so runs side by side do not collide."""

from __future__ import annotations

import shutil
import urllib.request
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.listening import free_port

STACK = Path(__file__).resolve().parents[2] / "examples" / "stack"
FILES = ("jobs-tui.toml", "process-compose.yaml", "Procfile")


def project(cli: Cli, keep: str) -> int:
    """The example copied into the test's cwd with only `keep` of its three files, and
    the API's port made a free one; returns that port."""
    port = free_port()
    work = Path(cli.cwd)
    for item in STACK.iterdir():
        if item.is_file() and (item.name == keep or item.name not in FILES):
            shutil.copy(item, work / item.name)
    path = work / keep
    text = path.read_text().replace("8765", str(port))
    if keep == "Procfile":
        text = text.replace("api: python3", f"api: PORT={port} python3")
    path.write_text(text)
    return port


def health(port: int) -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as answer:
        return answer.read()


def down_is_clean(cli: Cli, names: list[str]) -> None:
    done = cli.ok("down", "--json").json()
    stopped = [s["job"]["name"] for s in done["stopped"]]
    assert stopped == names
    running = [j for j in cli.ok("list", "--json").json()["jobs"] if j["status"] == "running"]
    assert running == []


def test_the_jobs_tui_toml_comes_up_in_order_and_goes_down(cli: Cli):
    port = project(cli, "jobs-tui.toml")
    up = cli("up", "--detach")
    assert up.code == 0, up
    assert up.out.splitlines() == ["db      started j1", "api     started j2", "worker  started j3"]
    ready = cli("wait", "db", "api", "--ready", "--timeout-ms", "20000")
    assert ready.code == 0, ready
    assert health(port) == b"ok\n"
    loop = cli("wait", "worker", "--timeout-ms", "30000")
    assert loop.code == 1, loop
    assert loop.out.startswith("✗ j3 worker · exit 1 · crash loop after 3 restarts")
    down_is_clean(cli, ["api", "db"])  # the worker had ended: not running


def test_the_process_compose_yaml_comes_up_too(cli: Cli):
    port = project(cli, "process-compose.yaml")
    assert cli("up", "--detach").code == 0
    ready = cli("wait", "api", "--ready", "--timeout-ms", "20000", "--json")
    assert ready.code == 0, ready
    assert ready.json()["job"]["phaseDetail"].startswith("http")  # its probe is the URL
    assert health(port) == b"ok\n"
    cli.ok("down", "worker")  # what depends on nothing but the API: stopped alone
    down_is_clean(cli, ["api", "db"])


@pytest.mark.timeout(90)
def test_the_procfile_comes_up_without_probes(cli: Cli):
    port = project(cli, "Procfile")
    up = cli("up", "--detach")
    assert up.code == 0, up
    assert up.out.splitlines() == ["db      started j1", "api     started j2", "worker  started j3"]
    cli.ok("wait", "db", "--until", "ready to accept", "--from-start", "--timeout-ms", "20000")
    cli.ok("wait", "api", "--port", str(port), "--timeout-ms", "20000")
    assert health(port) == b"ok\n"
    assert cli("wait", "worker", "--timeout-ms", "20000").code == 1  # no restarts: one exit
    down_is_clean(cli, ["db", "api"])  # one level: stopped together
