"""The registry belongs to the project: a job started at the root is known in subdirectories."""

from __future__ import annotations

from jobs_tui.engine import JobManager


async def test_a_job_started_at_the_repo_root_is_found_from_a_subdirectory(tmp_path):
    root = tmp_path / "repo"
    sub = root / "src" / "deep"
    sub.mkdir(parents=True)
    (root / ".git").mkdir()
    async with JobManager(cwd=root) as top:
        started = await top.start("printf hi")
        await top.wait(started.id, 10_000)
        async with JobManager(cwd=sub) as below:
            assert below.dir == top.dir
            found = below.get(started.id)
            assert found.cwd == str(root)  # a job's own cwd is where it was started
            assert (await below.logs(started.id)).text == "hi"
        async with JobManager(cwd=sub) as below:
            own = await below.start("pwd")
            assert (await below.wait(own.id, 10_000)).cwd == str(sub)
            assert (await below.logs(own.id)).text.strip() == str(sub)
