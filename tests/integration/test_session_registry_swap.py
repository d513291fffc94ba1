"""Issue 22 §2: a registry directory swapped under a running session steers none of the
session's writes or reads (it holds the directory it verified when it opened, by fd).

A real JobManager opens its registry, runs a job; then the directory is renamed away and
a new one of ours takes its place, with links planted at every name the session is about
to write or read (its registry and marker files, the next job's lock, log, exit and env
files, the cursors and the locks, the last job's log). The session then starts a job
(its shim, too, works in the directory the session holds), saves its registry, reads
output through its cursors, clears a job and closes: every victim is byte-identical,
nothing is created in the new directory, and the session's files are in the original.
"""

from __future__ import annotations

import os
from pathlib import Path

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.logs.unread import UnreadCursors
from jobs_tui.engine.registry.paths import session_hash

SESSION = "swap-session"


def _plant(new: Path, victims: Path, names: list[str]) -> dict[Path, bytes]:
    """A link at each name to a victim file of its own (0644, known bytes)."""
    planted: dict[Path, bytes] = {}
    for name in names:
        target = victims / f"victim-{name.strip('.')}"
        data = f"victim bytes of {name}\n".encode()
        target.write_bytes(data)
        os.chmod(target, 0o644)
        os.symlink(target, new / name)
        planted[target] = data
    return planted


async def test_a_swapped_registry_changes_nothing_the_session_writes_or_reads(tmp_path):
    parent = tmp_path / "p"
    parent.mkdir(mode=0o700)
    registry = parent / "reg"
    victims = tmp_path / "victims"
    victims.mkdir()
    digest = session_hash(SESSION)
    config = Config(kill_grace_ms=200)
    jm = JobManager(registry_dir=registry, config=config, session_id=SESSION, persistent=True)
    await jm.open()
    try:
        first = await jm.start("echo first-output")
        await jm.wait(first.id, 10_000)
        cursors = UnreadCursors(jm)
        assert "first-output" in (await cursors.read(first.id, 4096)).text

        moved = parent / "reg.real"
        os.rename(registry, moved)
        registry.mkdir(mode=0o700)
        names = [
            f"registry-{digest}.json",
            f"session-{digest}.json",
            f"persist-{digest}.lock",
            f"cursors-{digest}.json",
            f"cursors-{digest}.lock",
            "j2.lock",
            "j2.log",
            "j2.log.1",
            "j2.status",
            "j2.end",
            "j2.env",
            "j2.sock",
            f"{first.id}.log",
        ]
        planted = _plant(registry, victims, names)
        before = sorted(os.listdir(registry))

        tail = await jm.logs(first.id)  # j1.log is a link to a victim in the swap
        assert "first-output" in tail.text and "victim" not in tail.text

        second = await jm.start("echo second-output", env={"SWAP_TEST": "1"})
        assert second.id == "j2"
        done = await jm.wait(second.id, 10_000)
        assert done.exit_code == 0
        got = await cursors.read(second.id, 4096)
        assert "second-output" in got.text  # read from the original directory
        assert "victim" not in got.text
        again = await jm.restart(second.id)  # reads j2.env, a link in the swap
        assert (await jm.wait(again.id, 10_000)).exit_code == 0
        await jm.clear(first.id)
        jm.registry.save()
    finally:
        await jm.close()

    for target, data in planted.items():
        assert target.read_bytes() == data, f"{target.name} was written through a link"
    assert sorted(os.listdir(registry)) == before, "the session created files in the swap"
    kept = set(os.listdir(moved))
    assert {"j2.log", "j2.status", "j2.end", "j2.env", f"registry-{digest}.json"} <= kept
    assert {f"{again.id}.log", f"{again.id}.status", f"{again.id}.env"} <= kept
    assert f"cursors-{digest}.json" in kept
    assert not any(name.startswith(f"{first.id}.") for name in kept), "j1 was not cleared"
    assert b"second-output" in (moved / "j2.log").read_bytes()
    own = (moved / f"registry-{digest}.json").read_bytes()
    assert b'"j2"' in own and b'"j1"' not in own
