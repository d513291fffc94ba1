"""Command-line benchmarks: what one `jobs-tui` call costs against an interpreter start.

Run by hand (not part of the default test run):

    python -m pytest tests/bench/test_cli_bench.py -s -p no:cacheprovider

`jobs-tui exec -- true` is timed interleaved with `python -c pass` (the same
interpreter) and `sh -c true`, so every ratio compares runs made under the same
load. `start` then `wait` on a 1-second job is compared with `sh -c 'sleep 1'`.
`status ID`, `list` and `exec -- true` are then timed with 1, 10, 20 and 50
running jobs in the session, interleaved with `python -c pass`: the targets
(issue 10) are at 20 running jobs, and the rows show how each call grows.
Only exit codes are asserted, never timing. JOBS_TUI_BENCH_CLI_RUNS sets the
number of exec runs (default 30), JOBS_TUI_BENCH_CLI_WAITS the start/wait pairs
(default 5), JOBS_TUI_BENCH_CLI_GROWTH_RUNS the runs per call and job count
(default 15).

A/B against other code: JOBS_TUI_BENCH_CLI_AB=DIR, a directory holding a `jobs_tui`
package (for example `git archive OLD app engine | tar -x -C DIR/jobs_tui` and an empty
`DIR/jobs_tui/__init__.py`), times `status`, `list` and `exec -- true` of that code and
of this one interleaved with `python -c pass`, each on its own registry with 20 running
jobs (skipped without it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from benchlib import Table, env_int, median, p95, publish, reap_leftovers

RUNS = max(3, env_int("JOBS_TUI_BENCH_CLI_RUNS", 30))
WAITS = max(1, env_int("JOBS_TUI_BENCH_CLI_WAITS", 5))
GROWTH_RUNS = max(3, env_int("JOBS_TUI_BENCH_CLI_GROWTH_RUNS", 15))
RUNNING = (1, 10, 20, 50)  # running jobs in the session
TARGET_AT = 20  # the targets hold with this many running jobs
READ_TARGET = 3.0  # status ID and list, times python -c pass
EXEC_TARGET = 4.0  # exec -- true, times python -c pass
EXEC_TARGET_MS = 150.0
WAIT_OVERHEAD_TARGET_MS = 200.0

pytestmark = pytest.mark.timeout(1800)


def entry() -> tuple[list[str], str]:
    """The installed console script if there is one beside the interpreter, else `-m`."""
    script = Path(sys.executable).with_name("jobs-tui")
    if script.exists():
        return [str(script)], "jobs-tui (console script)"
    return [sys.executable, "-m", "jobs_tui.app.cli"], "python -m jobs_tui.app.cli"


def fresh_bytecode() -> None:
    """Compile the package as an install does: with PYTHONDONTWRITEBYTECODE set (as in
    some shells and CI), an edited module would otherwise be compiled again by every call."""
    import compileall

    import jobs_tui.app
    import jobs_tui.engine

    for package in (jobs_tui.app, jobs_tui.engine):
        for directory in package.__path__:
            compileall.compile_dir(directory, quiet=1)


class Runner:
    def __init__(self, root: Path, registry: str = "cli-registry") -> None:
        fresh_bytecode()
        self.env = dict(
            os.environ,
            JOBS_TUI_REGISTRY_DIR=str(root / registry),
            JOBS_TUI_CONFIG=str(root / "no-config.toml"),
            JOBS_TUI_SESSION="bench",
        )
        self.cwd = str(root)
        self.cli, self.name = entry()

    def timed(self, argv: list[str]) -> tuple[float, str]:
        """Wall milliseconds of one process, and its stdout; it must exit 0."""
        started = time.perf_counter()
        done = subprocess.run(
            argv, env=self.env, cwd=self.cwd, capture_output=True, text=True, timeout=120
        )
        took = (time.perf_counter() - started) * 1000
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
        return took, done.stdout

    def jobs_tui(self, *words: str) -> tuple[float, str]:
        return self.timed([*self.cli, *words])


def ms(value: float) -> str:
    return f"{value:.1f} ms"


@pytest.fixture(scope="module")
def runner(bench_root: Path):
    run = Runner(bench_root)
    run.jobs_tui("list")  # warm the file cache and create the registry directory
    yield run
    subprocess.run([*run.cli, "clear", "--all"], env=run.env, cwd=run.cwd, capture_output=True)
    reap_leftovers()


def test_exec_true_against_an_interpreter_start(runner: Runner):
    python = [sys.executable, "-c", "pass"]
    shell = ["sh", "-c", "true"]
    exec_ms: list[float] = []
    python_ms: list[float] = []
    shell_ms: list[float] = []
    for index in range(RUNS):
        exec_ms.append(runner.jobs_tui("exec", "--", "true")[0])
        python_ms.append(runner.timed(python)[0])
        shell_ms.append(runner.timed(shell)[0])
        if index % 10 == 9:
            runner.jobs_tui("clear")  # keep the registry small, as an agent's would be
            reap_leftovers()
    e, p, s = median(exec_ms), median(python_ms), median(shell_ms)
    table = Table(f"jobs-tui exec -- true, {RUNS} interleaved runs, via {runner.name}")
    table.add(
        "exec median",
        ms(e),
        f"python -c pass {ms(p)}",
        f"{e / p:.2f}x",
        f"<= {EXEC_TARGET:.0f}x",
        e / p <= EXEC_TARGET,
    )
    table.add("exec median", ms(e), "", "", f"< {EXEC_TARGET_MS:.0f} ms", e < EXEC_TARGET_MS)
    table.add("exec median", ms(e), f"sh -c true {ms(s)}", f"{e / s:.0f}x")
    table.add("exec p95", ms(p95(exec_ms)), f"python -c pass p95 {ms(p95(python_ms))}")
    table.add("exec overhead over python", ms(e - p), "", "", "", None)
    publish(table)


def test_shim_launch_against_a_bare_interpreter(tmp_path: Path):
    """What `launch` waits for (the shim up, its job spawned, the ready line read), beside
    `python -I -S -c pass`, the interpreter start the shim cannot avoid; and how long the
    shim of `true` lives on after its ready line (its exit path)."""
    from jobs_tui.engine.session.launch import launch
    from jobs_tui.engine.shim import procs

    fresh_bytecode()
    bare = [sys.executable, "-I", "-S", "-c", "pass"]
    launch_ms: list[float] = []
    gone_ms: list[float] = []
    bare_ms: list[float] = []
    for index in range(RUNS):
        base = str(tmp_path / f"j{index}")
        spec = {
            "id": f"j{index}",
            "command": "true",
            "cwd": str(tmp_path),
            "log": base + ".log",
            "previous": base + ".log.1",
            "status": base + ".status",
            "end": base + ".end",
            "socket": base + ".sock",
            "maxLogBytes": 1 << 20,
            "killGraceMs": 1000,
            "timeoutMs": None,
            "stdin": False,
            "tty": False,
            "cols": 80,
            "rows": 24,
            "ownerPid": os.getpid(),
            "ownerToken": procs.start_token(os.getpid()),
            "ownerPoll": False,
            "marker": f"bench:j{index}",
        }
        started = time.perf_counter()
        ready = launch(spec)  # type: ignore[arg-type]
        launch_ms.append((time.perf_counter() - started) * 1000)
        while procs.pid_alive(ready["shimPid"]) and time.perf_counter() - started < 10:
            time.sleep(0.0005)
        gone_ms.append((time.perf_counter() - started) * 1000 - launch_ms[-1])
        started = time.perf_counter()
        subprocess.run(bare, check=True)
        bare_ms.append((time.perf_counter() - started) * 1000)
        reap_leftovers()
    a, b = median(launch_ms), median(bare_ms)
    table = Table(f"shim launch (Popen -> ready line), {RUNS} interleaved runs")
    table.add("launch median", ms(a), f"python -I -S -c pass {ms(b)}", f"{a / b:.2f}x")
    table.add("launch p95", ms(p95(launch_ms)), f"p95 {ms(p95(bare_ms))}")
    table.add("ready -> shim gone (job `true`)", ms(median(gone_ms)), "", "", "", None)
    publish(table)


def test_start_then_wait_on_a_one_second_job(runner: Runner):
    pairs: list[tuple[float, float, float]] = []
    for _ in range(WAITS):
        started_ms, out = runner.jobs_tui("start", "--json", "--", "sleep 1")
        job_id = json.loads(out)["job"]["id"]
        wait_ms, _ = runner.jobs_tui("wait", job_id, "--timeout-ms", "30000")
        base_ms, _ = runner.timed(["sh", "-c", "sleep 1"])
        pairs.append((started_ms, wait_ms, base_ms))
    runner.jobs_tui("clear")
    total = median([a + b for a, b, _ in pairs])
    base = median([c for _, _, c in pairs])
    start = median([a for a, _, _ in pairs])
    overhead = total - base
    table = Table(f"jobs-tui start, then wait, on `sleep 1` ({WAITS} pairs)")
    table.add(
        "start + wait median",
        ms(total),
        f"sh -c 'sleep 1' {ms(base)}",
        f"{total / base:.2f}x",
        f"overhead < {WAIT_OVERHEAD_TARGET_MS:.0f} ms",
        overhead < WAIT_OVERHEAD_TARGET_MS,
    )
    table.add("overhead (start + wait - sh)", ms(overhead), "", "", "", None)
    table.add("start alone median", ms(start), "", "", "", None)
    publish(table)


def test_everyday_calls(runner: Runner):
    """list / status / poll with a few jobs around: the calls an agent makes most."""
    for _ in range(3):
        runner.jobs_tui("start", "--", "sleep 30")
    _, out = runner.jobs_tui("start", "--json", "--", "seq 1 1000")
    job_id = json.loads(out)["job"]["id"]
    python = [sys.executable, "-c", "pass"]
    figures: dict[str, list[float]] = {"list": [], "status": [], "poll": [], "python": []}
    for _ in range(max(3, RUNS // 3)):
        figures["list"].append(runner.jobs_tui("list")[0])
        figures["status"].append(runner.jobs_tui("status", job_id)[0])
        figures["poll"].append(runner.jobs_tui("poll", job_id)[0])
        figures["python"].append(runner.timed(python)[0])
    base = median(figures["python"])
    table = Table("everyday calls (4 jobs in the session, 3 of them running)")
    for name in ("list", "status", "poll"):
        value = median(figures[name])
        table.add(f"{name} median", ms(value), f"python -c pass {ms(base)}", f"{value / base:.1f}x")
    publish(table)
    runner.jobs_tui("clear", "--all")


def test_status_list_and_exec_as_running_jobs_grow(bench_root: Path):
    """The targets of issue 10 at 20 running jobs, and the growth from 1 to 50."""
    runner = Runner(bench_root, "growth-registry")  # its own registry: nothing else in it
    python = [sys.executable, "-c", "pass"]
    calls = {"status": ("status", "j1"), "list": ("list",), "exec": ("exec", "--", "true")}
    targets = {"status": READ_TARGET, "list": READ_TARGET, "exec": EXEC_TARGET}
    started: list[str] = []
    ratios: dict[str, dict[int, float]] = {name: {} for name in calls}
    table = Table(f"status / list / exec with N running jobs, {GROWTH_RUNS} interleaved runs each")
    try:
        for count in RUNNING:
            while len(started) < count:
                _, out = runner.jobs_tui("start", "--json", "--", "sleep 3600")
                started.append(json.loads(out)["job"]["id"])
            figures: dict[str, list[float]] = {"python": [], **{name: [] for name in calls}}
            for index in range(GROWTH_RUNS):
                figures["python"].append(runner.timed(python)[0])
                for name, words in calls.items():
                    figures[name].append(runner.jobs_tui(*words)[0])
                if index % 10 == 9:
                    runner.jobs_tui("clear")  # exec's finished jobs: keep the registry small
            base = median(figures["python"])
            for name in calls:
                value = median(figures[name])
                ratios[name][count] = value / base
                at_target = count == TARGET_AT
                table.add(
                    f"{name}, {count} running",
                    ms(value),
                    f"python -c pass {ms(base)}",
                    f"{value / base:.2f}x",
                    f"<= {targets[name]:.0f}x" if at_target else "",
                    value / base <= targets[name] if at_target else None,
                )
            runner.jobs_tui("clear")
        for name in calls:
            low, high = ratios[name][RUNNING[0]], ratios[name][RUNNING[-1]]
            table.add(
                f"{name}: {RUNNING[-1]} running against {RUNNING[0]}",
                f"{high:.2f}x vs {low:.2f}x",
                "",
                f"{high / low:.2f}",
            )
        publish(table)
    finally:
        for job_id in started:
            subprocess.run(
                [*runner.cli, "kill", job_id], env=runner.env, cwd=runner.cwd, capture_output=True
            )
        subprocess.run(
            [*runner.cli, "clear", "--all"], env=runner.env, cwd=runner.cwd, capture_output=True
        )
        reap_leftovers()


AB_DIR = os.environ.get("JOBS_TUI_BENCH_CLI_AB", "")


@pytest.mark.skipif(not AB_DIR, reason="JOBS_TUI_BENCH_CLI_AB names the other code's directory")
def test_ab_against_other_code(bench_root: Path):
    """Old and new code in the same run, interleaved: the least noisy way to see a change."""
    boot = "import sys; sys.path.insert(0, sys.argv.pop(1)); from jobs_tui.app.cli import main; "
    sides = {
        "this code": Runner(bench_root, "ab-this"),
        "other code": Runner(bench_root, "ab-other"),
    }
    sides["other code"].cli = [sys.executable, "-c", boot + "sys.exit(main())", AB_DIR]
    python = [sys.executable, "-c", "pass"]
    calls = {"status": ("status", "j1"), "list": ("list",), "exec": ("exec", "--", "true")}
    started = {name: [] for name in sides}
    figures: dict[str, list[float]] = {"python": []}
    try:
        for name, side in sides.items():
            for _ in range(TARGET_AT):
                _, out = side.jobs_tui("start", "--json", "--", "sleep 3600")
                started[name].append(json.loads(out)["job"]["id"])
        for index in range(GROWTH_RUNS):
            figures["python"].append(runner_time(sides["this code"], python))
            order = list(sides.items()) if index % 2 == 0 else list(sides.items())[::-1]
            for name, side in order:
                for call, words in calls.items():
                    figures.setdefault(f"{call}|{name}", []).append(side.jobs_tui(*words)[0])
            if index % 10 == 9:
                for side in sides.values():
                    side.jobs_tui("clear")
        base = median(figures["python"])
        table = Table(f"A/B with {TARGET_AT} running jobs, {GROWTH_RUNS} interleaved runs each")
        for call in calls:
            this, other = (median(figures[f"{call}|{n}"]) for n in sides)
            table.add(
                f"{call}: this / other code",
                f"{ms(this)} / {ms(other)}",
                f"python -c pass {ms(base)}",
                f"{this / base:.2f}x / {other / base:.2f}x",
                f"{this / other:.2f} of the other's time",
            )
        publish(table)
    finally:
        for name, side in sides.items():
            for job_id in started[name]:
                subprocess.run([*side.cli, "kill", job_id], env=side.env, capture_output=True)
            subprocess.run([*side.cli, "clear", "--all"], env=side.env, capture_output=True)
        reap_leftovers()


def runner_time(runner: Runner, argv: list[str]) -> float:
    return runner.timed(argv)[0]
