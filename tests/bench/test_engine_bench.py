"""Engine benchmarks: throughput, small writes, latency, memory and tail reads.

Run by hand (not part of the default test run):

    python -m pytest tests/bench -s -p no:cacheprovider

Every figure is printed beside a baseline measured in the same run, with the
target it is held to and PASS/MISS; only gross sanity is asserted (exit codes,
byte counts, line contents), never timing. See benchlib.py for the environment
variables that shrink the runs (JOBS_TUI_BENCH_BYTES=64M for a quick run).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from benchlib import (
    BENCH_BYTES,
    BENCH_PAIRS,
    LATENCY_RUNS,
    PTY_BYTES,
    ROTATE_BYTES,
    SMALL_BYTES,
    SMALL_PAIRS,
    STATE,
    TAIL_READS,
    YES_LINE,
    EngineBench,
    EngineRun,
    KiB,
    MiB,
    Table,
    assert_exited_ok,
    check_segments,
    human_bytes,
    median,
    p95,
    publish,
    read_status_kib,
    remove_logs,
    settle_disk,
    spread,
)

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.logs.segments import read_tail

pytestmark = pytest.mark.timeout(3600)

N = BENCH_BYTES
WORKLOADS = {
    "zero": f"head -c {N} /dev/zero",
    "yes": f"yes {YES_LINE} | head -c {N}",
}
F_SETPIPE_SZ = 1031


def manager(root: Path, name: str) -> JobManager:
    return JobManager(
        cwd=str(root),
        registry_dir=str(root / f"reg-{name}"),
        config=Config(max_log_bytes=ROTATE_BYTES),
    )


def mib_s(nbytes: int, seconds: float) -> float:
    return nbytes / MiB / seconds


def pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else float("inf")


def run_shell(command: str, path: Path, expected: int) -> float:
    """Baseline: the same command with its output redirected to a file by sh."""
    t0 = time.perf_counter()
    proc = subprocess.run(["/bin/sh", "-c", f"{command} > {shlex.quote(str(path))}"], check=False)
    elapsed = time.perf_counter() - t0
    try:
        assert proc.returncode == 0, f"baseline exited {proc.returncode}"
        assert path.stat().st_size == expected, (path.stat().st_size, expected)
    finally:
        path.unlink(missing_ok=True)
    return elapsed


# -- 1. throughput ------------------------------------------------------------------
# The method (docs/performance.md): every timed run starts after os.sync() and a short
# pause, so one run's writeback never lands on the next; the two sides alternate which
# goes first; the ratio is taken of the two sides' medians, and min/median/max are shown.
def timed_shell(command: str, path: Path, expected: int) -> float:
    settle_disk()
    return run_shell(command, path, expected)


async def timed_engine(bench: EngineBench, command: str, *, tty: bool = False) -> EngineRun:
    settle_disk()
    run, _ = await bench.run(command, tty=tty)
    return run


@pytest.mark.parametrize("workload", list(WORKLOADS))
async def test_throughput(workload: str, bench_root: Path) -> None:
    """1 GiB through the engine (8 MiB rotation) vs `sh -c 'CMD > file'`, both orders."""
    command = WORKLOADS[workload]
    out = bench_root / f"shell-{workload}.out"
    shells: list[float] = []
    runs: list[EngineRun] = []
    print(f"\n[throughput:{workload}] {human_bytes(N)} x {BENCH_PAIRS} per side: {command}")
    async with manager(bench_root, workload) as jm:
        bench = EngineBench(jm)
        previous_live: str | None = None
        for index in range(BENCH_PAIRS + 1):  # index 0 warms both sides up
            engine_first = index % 2 == 1
            if engine_first:
                run = await timed_engine(bench, command)
                shell_s = timed_shell(command, out, N)
            else:
                shell_s = timed_shell(command, out, N)
                run = await timed_engine(bench, command)
            record = run.record
            assert_exited_ok(record)
            assert record.log_bytes == N, (record.log_bytes, N)
            live, prev = check_segments(record.log_path, N, ROTATE_BYTES)
            if previous_live:
                remove_logs(previous_live)
            previous_live = record.log_path
            label = "warm-up" if index == 0 else f"run {index}"
            print(
                f"  {label:8} {'engine first' if engine_first else 'shell first '}  "
                f"shell {shell_s:6.3f}s {mib_s(N, shell_s):7.0f} MiB/s  "
                f"engine {run.total_s:6.3f}s {mib_s(N, run.total_s):7.0f} MiB/s "
                f"(start {run.start_s * 1000:5.1f} ms)  "
                f"caller cpu {run.caller_cpu_s * 1000:6.1f} ms  "
                f"shim cpu {run.shim.cpu_s * 1000:6.1f} ms  segments {live}+{prev}",
                flush=True,
            )
            if index:
                shells.append(shell_s)
                runs.append(run)
        if workload == "yes":
            STATE["yes"] = {
                "registry_dir": str(bench_root / f"reg-{workload}"),
                "id": runs[-1].record.id,
                "log": runs[-1].record.log_path,
                "bytes": N,
            }
        if workload == "zero":
            STATE["bulk_shim_ms_per_mib"] = median([r.shim.cpu_s * 1000 / (N / MiB) for r in runs])

    engines = [r.total_s for r in runs]
    ratio = median(shells) / median(engines)
    caller = median([r.caller_cpu_s for r in runs])
    shim = median([r.shim.cpu_s for r in runs])
    cpu_share = median([pct(r.caller_cpu_s, r.shim.cpu_s) for r in runs])
    exact = all(r.shim.exact for r in runs)
    print(f"  shell  {spread(shells)}\n  engine {spread(engines)}")

    table = Table(
        f"1. throughput, {workload}: {human_bytes(N)}, 8 MiB rotation, "
        f"medians of {len(runs)} runs per side"
    )
    table.add(
        "engine throughput (start() -> job-finished)",
        f"{mib_s(N, median(engines)):.0f} MiB/s",
        f"{mib_s(N, median(shells)):.0f} MiB/s sh -c 'CMD > file'",
        f"{ratio:.2f}x",
        ">= 0.95x",
        ratio >= 0.95,
    )
    table.add("engine seconds", spread(engines))
    table.add("shell seconds", spread(shells))
    table.add(
        "session CPU / shim CPU",
        f"{caller * 1000:.1f} ms session",
        f"{shim * 1000:.1f} ms shim" + ("" if exact else " (sampled)"),
        f"{cpu_share:.1f}%",
        "< 5%",
        cpu_share < 5.0,
    )
    table.add("shim CPU per GiB written", f"{shim / (N / (1 << 30)) * 1000:.0f} ms/GiB")
    table.add("start() -> running record", f"{median([r.start_s for r in runs]) * 1000:.1f} ms")
    publish(table)


# -- 1b. throughput on a terminal ---------------------------------------------------
PTY_READER = (
    "import os, sys\n"
    "pid, fd = os.forkpty()\n"
    "if pid == 0:\n"
    "    os.execv('/bin/sh', ['sh', '-c', sys.argv[1]])\n"
    "out = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)\n"
    "buf = bytearray(1 << 20); view = memoryview(buf)\n"
    "while True:\n"
    "    try:\n"
    "        got = os.readv(fd, [buf])\n"
    "    except OSError:\n"
    "        break\n"
    "    if not got:\n"
    "        break\n"
    "    os.write(out, view[:got])\n"
    "os.waitpid(pid, 0)\n"
)


def run_pty_reader(command: str, path: Path, expected: int) -> float:
    """Baseline: the command on a pseudo-terminal, copied to a file by a minimal reader."""
    settle_disk()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", PTY_READER, command, str(path)], check=True)
    elapsed = time.perf_counter() - t0
    try:
        assert path.stat().st_size == expected, (path.stat().st_size, expected)
    finally:
        path.unlink(missing_ok=True)
    return elapsed


async def test_pty_throughput(bench_root: Path) -> None:
    """A terminal job's output (zeros) vs a minimal PTY reader writing the same to a file."""
    size = PTY_BYTES
    command = f"head -c {size} /dev/zero"
    out = bench_root / "pty.out"
    bases: list[float] = []
    runs: list[EngineRun] = []
    print(f"\n[pty throughput] {human_bytes(size)} x {BENCH_PAIRS} per side: {command}")
    async with manager(bench_root, "pty") as jm:
        bench = EngineBench(jm)
        for index in range(BENCH_PAIRS + 1):
            if index % 2:
                run = await timed_engine(bench, command, tty=True)
                base = run_pty_reader(command, out, size)
            else:
                base = run_pty_reader(command, out, size)
                run = await timed_engine(bench, command, tty=True)
            assert_exited_ok(run.record)
            assert run.record.log_bytes == size, (run.record.log_bytes, size)
            remove_logs(run.record.log_path)
            print(
                f"  {'warm-up' if index == 0 else f'run {index}':8} reader {base:6.3f}s  "
                f"engine {run.total_s:6.3f}s  shim cpu {run.shim.cpu_s * 1000:6.1f} ms",
                flush=True,
            )
            if index:
                bases.append(base)
                runs.append(run)
    engines = [r.total_s for r in runs]
    ratio = median(bases) / median(engines)
    table = Table(f"1b. terminal throughput: {human_bytes(size)} of zeros, {len(runs)} per side")
    table.add(
        "engine, tty job (start() -> job-finished)",
        f"{mib_s(size, median(engines)):.0f} MiB/s",
        f"{mib_s(size, median(bases)):.0f} MiB/s minimal PTY reader",
        f"{ratio:.2f}x",
        ">= 0.95x",
        ratio >= 0.95,
    )
    table.add("engine seconds", spread(engines))
    table.add("reader seconds", spread(bases))
    publish(table)


# -- 2. many small writes -----------------------------------------------------------
SMALL_LINES = max(1, SMALL_BYTES // 80)
PRODUCER = (
    "import sys\n"
    "w = sys.stdout.buffer\n"
    f"line = b'{YES_LINE}\\n'\n"
    f"for _ in range({SMALL_LINES}):\n"
    "    w.write(line)\n"
    "    w.flush()\n"
)
PRODUCER_CMD = f"{shlex.quote(sys.executable)} -c {shlex.quote(PRODUCER)}"


def run_cat_pipeline(path: Path) -> tuple[float, float]:
    """Baseline: producer | cat > file; returns (wall seconds, cat's CPU seconds)."""
    settle_disk()
    cat = shutil.which("cat") or "/bin/cat"
    r, w = os.pipe()
    with contextlib.suppress(OSError):
        fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 20)  # the shim's pipe is 1 MiB too
    out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    t0 = time.perf_counter()
    try:
        producer = os.posix_spawn(
            sys.executable,
            [sys.executable, "-c", PRODUCER],
            os.environ,
            file_actions=[(os.POSIX_SPAWN_DUP2, w, 1)],
        )
        reader = os.posix_spawn(
            cat,
            ["cat"],
            os.environ,
            file_actions=[(os.POSIX_SPAWN_DUP2, r, 0), (os.POSIX_SPAWN_DUP2, out, 1)],
        )
    finally:
        os.close(r)
        os.close(w)
        os.close(out)
    _, status_p, _ = os.wait4(producer, 0)
    _, status_c, usage = os.wait4(reader, 0)
    elapsed = time.perf_counter() - t0
    try:
        assert os.waitstatus_to_exitcode(status_p) == 0
        assert os.waitstatus_to_exitcode(status_c) == 0
        assert path.stat().st_size == SMALL_LINES * 80
    finally:
        path.unlink(missing_ok=True)
    return elapsed, usage.ru_utime + usage.ru_stime


async def test_small_writes(bench_root: Path) -> None:
    """80-byte lines, flushed one by one: the shim's CPU per MiB against cat's."""
    expected = SMALL_LINES * 80
    mib = expected / MiB
    out = bench_root / "small.out"
    print(f"\n[small writes] {SMALL_LINES} flushed 80-byte lines ({human_bytes(expected)})")
    rows: list[tuple[float, float, EngineRun]] = []
    async with manager(bench_root, "small") as jm:
        bench = EngineBench(jm)
        idle = []
        for _ in range(3):
            run, _ = await bench.run("true")
            assert_exited_ok(run.record)
            idle.append(run.shim.cpu_s)
        idle_s = median(idle)
        for index in range(SMALL_PAIRS + 1):
            engine_first = index % 2 == 1
            if engine_first:
                run = await timed_engine(bench, PRODUCER_CMD)
                cat_wall, cat_cpu = run_cat_pipeline(out)
            else:
                cat_wall, cat_cpu = run_cat_pipeline(out)
                run = await timed_engine(bench, PRODUCER_CMD)
            assert_exited_ok(run.record)
            assert run.record.log_bytes == expected, (run.record.log_bytes, expected)
            check_segments(run.record.log_path, expected, ROTATE_BYTES)
            remove_logs(run.record.log_path)
            label = "warm-up" if index == 0 else f"run {index}"
            print(
                f"  {label:8} engine {run.job_s:6.3f}s shim cpu {run.shim.cpu_s * 1000:7.1f} ms "
                f"({(run.shim.cpu_s - idle_s) * 1000 / mib:6.2f} ms/MiB net)  "
                f"cat pipeline {cat_wall:6.3f}s cat cpu {cat_cpu * 1000:7.1f} ms "
                f"({cat_cpu * 1000 / mib:6.2f} ms/MiB)",
                flush=True,
            )
            if index:
                rows.append((cat_wall, cat_cpu, run))

    nets = [(r.shim.cpu_s - idle_s) * 1000 / mib for _, _, r in rows]
    cats = [c * 1000 / mib for _, c, _ in rows]
    shim_raw = median([r.shim.cpu_s * 1000 / mib for _, _, r in rows])
    walls_engine = [r.job_s for _, _, r in rows]
    walls_cat = [w for w, _, _ in rows]
    table = Table(
        f"2. small writes: {SMALL_LINES} flushed 80-byte lines, {len(rows)} runs per side"
    )
    table.add(
        "shim CPU per MiB (net of an idle shim), median",
        f"{median(nets):.2f} ms/MiB",
        f"{median(cats):.2f} ms/MiB cat",
        f"{median(nets) / median(cats):.1f}x" if median(cats) else "-",
    )
    table.add("shim CPU per MiB (net)", spread(nets, unit="ms/MiB"))
    table.add("cat CPU per MiB", spread(cats, unit="ms/MiB"))
    table.add("shim CPU per MiB (raw)", f"{shim_raw:.2f} ms/MiB")
    table.add("idle shim CPU (`true`: start to exit)", f"{idle_s * 1000:.1f} ms")
    bulk = STATE.get("bulk_shim_ms_per_mib")
    if bulk:
        table.add(
            "shim CPU per MiB, bulk 1 GiB zero workload",
            f"{bulk:.3f} ms/MiB",
            f"{shim_raw:.2f} ms/MiB small writes",
            f"{shim_raw / bulk:.0f}x" if bulk else "-",
        )
    table.add(
        "producer wall time, median",
        f"{median(walls_engine):.3f} s under the engine",
        f"{median(walls_cat):.3f} s | cat",
        f"{median(walls_cat) / median(walls_engine):.2f}x",
    )
    publish(table)


# -- 3. latency ---------------------------------------------------------------------
def spawn_bare_python() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - t0


async def test_latency(bench_root: Path) -> None:
    """start() to a running record, and job exit to the job-finished event."""
    marks = bench_root / "latency"
    marks.mkdir()
    starts: list[float] = []
    spawns: list[float] = []
    exits: list[float] = []
    reaps: list[float] = []
    print(f"\n[latency] {LATENCY_RUNS} runs (+1 warm-up) of `sleep 0.2; exec date +%s%N > FILE`")
    async with manager(bench_root, "latency") as jm:
        bench = EngineBench(jm)
        for index in range(LATENCY_RUNS + 1):
            end_file = marks / f"end-{index}"
            command = f"sleep 0.2; exec date +%s%N > {shlex.quote(str(end_file))}"
            spawn_first = index % 2 == 0
            spawn_s = spawn_bare_python() if spawn_first else 0.0
            run, _ = await bench.run(command)
            if not spawn_first:
                spawn_s = spawn_bare_python()
            assert run.started_status == "running", run.record
            assert_exited_ok(run.record)
            ended_ns = int(end_file.read_text().strip())
            event_ns = bench.finished_ns[run.record.id]
            exit_ms = (event_ns - ended_ns) / 1e6
            reap_ms = run.record.finished_at - ended_ns / 1e6  # shim's finishedAt (ms clock)
            if index:
                starts.append(run.start_s * 1000)
                spawns.append(spawn_s * 1000)
                exits.append(exit_ms)
                reaps.append(reap_ms)

    start_ratio = median(starts) / median(spawns)
    table = Table(f"3. latency: {len(starts)} runs")
    table.add(
        "start() -> running record, median",
        f"{median(starts):.1f} ms",
        f"{median(spawns):.1f} ms python -c pass",
        f"{start_ratio:.2f}x",
        "<= 2.00x",
        start_ratio <= 2.0,
    )
    table.add(
        "start() -> running record, p95",
        f"{p95(starts):.1f} ms",
        f"{p95(spawns):.1f} ms python -c pass",
        f"{p95(starts) / p95(spawns):.2f}x",
    )
    table.add(
        "job exit -> job-finished event, median",
        f"{median(exits):.1f} ms",
        f"{median(spawns):.1f} ms python -c pass",
        f"{median(exits) / median(spawns):.2f}x",
        "< 25 ms",
        median(exits) < 25.0,
    )
    table.add("job exit -> job-finished event, p95", f"{p95(exits):.1f} ms", "", "", "")
    table.add(
        "  of which job exit -> shim reaped it (finishedAt, ms clock)",
        f"{median(reaps):.1f} ms",
        "",
        "",
        "",
    )
    table.add(
        "  of which shim reaped -> event in session",
        f"{median([e - r for e, r in zip(exits, reaps, strict=True)]):.1f} ms",
    )
    publish(table)


# -- 4. memory ----------------------------------------------------------------------
def bare_python_hwm_kib() -> int:
    """Baseline: VmHWM of a bare interpreter, read by itself just before it exits.

    (wait4's ru_maxrss is no use here: it counts the spawning process's memory
    from before the exec.)
    """
    code = "import sys; sys.stdout.write(open('/proc/self/status').read())"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    for line in out.stdout.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc/self/status")


def sample_at(samples: list[tuple[float, int, int]], fraction: float) -> tuple[float, int, int]:
    t_first, t_last = samples[0][0], samples[-1][0]
    when = t_first + fraction * (t_last - t_first)
    return min(samples, key=lambda s: abs(s[0] - when))


async def test_memory(bench_root: Path) -> None:
    """The shim's peak RSS while 1 GiB of lines goes through it, and whether it grows."""
    command = WORKLOADS["yes"]
    print(f"\n[memory] {human_bytes(N)} of 80-byte lines, VmRSS/VmHWM polled every 10 ms")
    samples: list[tuple[float, int, int]] = []
    async with manager(bench_root, "memory") as jm:
        bench = EngineBench(jm)

        async def poll(record: Any) -> None:
            while record.id not in bench.finished_perf:
                status = read_status_kib(record.shim_pid)
                if not status:
                    break
                samples.append((time.perf_counter(), status["VmRSS"], status["VmHWM"]))
                await asyncio.sleep(0.01)

        run, _ = await bench.run(command, during=poll)
        assert_exited_ok(run.record)
        assert run.record.log_bytes == N
        remove_logs(run.record.log_path)
    bare = median([bare_python_hwm_kib() for _ in range(3)])
    assert samples, "no /proc/<shim>/status samples"
    peak = max(s[2] for s in samples)
    early, late = sample_at(samples, 0.1), sample_at(samples, 0.9)
    growth = late[1] - early[1]
    print(
        f"  {len(samples)} samples over {samples[-1][0] - samples[0][0]:.2f}s; "
        f"10%: rss {early[1]} KiB hwm {early[2]} KiB; 90%: rss {late[1]} KiB hwm {late[2]} KiB"
    )
    table = Table(f"4. memory: shim during a {human_bytes(N)} job, {len(samples)} samples")
    table.add(
        "shim peak RSS (VmHWM)",
        f"{peak / 1024:.1f} MiB",
        f"{bare / 1024:.1f} MiB python -c pass",
        f"{peak / bare:.2f}x",
        "< 20 MiB",
        peak < 20 * 1024,
    )
    table.add(
        "shim RSS growth, 10% -> 90% of the run",
        f"{growth:+d} KiB",
        f"{early[1] / 1024:.1f} MiB at 10%",
        f"{late[1] / early[1]:.3f}x",
        "< 1 MiB",
        growth < 1024,
    )
    table.add(
        "shim VmHWM at 10% -> at 90%",
        f"{early[2] / 1024:.1f} -> {late[2] / 1024:.1f} MiB",
    )
    publish(table)


# -- 5. tail read -------------------------------------------------------------------
def floor_tail(live: str, lines: int) -> list[bytes]:
    """Baseline: the last 64 KiB of the segment pair, split, with no checks at all."""
    want = 64 * KiB
    chunks: list[bytes] = []
    with open(live, "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        fh.seek(max(0, size - want))
        chunks.append(fh.read())
    if size < want:
        with contextlib.suppress(FileNotFoundError), open(live + ".1", "rb") as fh:
            prev = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, prev - (want - size)))
            chunks.insert(0, fh.read())
    return b"".join(chunks).split(b"\n")[-lines:]


def check_tail_lines(lines: list[str], total: int) -> None:
    assert len(lines) == min(200, -(-total // 80)), len(lines)
    partial = total % 80
    body, last = (lines[:-1], lines[-1]) if partial else (lines, None)
    assert all(line == YES_LINE for line in body), body[:2]
    if last is not None:
        assert last == YES_LINE[:partial], last


async def test_tail_read(bench_root: Path) -> None:
    """200 lines from the end of a 1 GiB log: jm.logs() and read_tail() against a bare read."""
    state = STATE.get("yes")
    if state is None:  # the throughput benchmark was not selected: make the log here
        async with manager(bench_root, "tail") as jm:
            run, _ = await EngineBench(jm).run(WORKLOADS["yes"])
            assert_exited_ok(run.record)
            assert run.record.log_bytes == N
            state = {
                "registry_dir": str(bench_root / "reg-tail"),
                "id": run.record.id,
                "log": run.record.log_path,
                "bytes": N,
            }
    live, previous, job_id = state["log"], state["log"] + ".1", state["id"]
    floors: list[float] = []
    directs: list[float] = []
    vias: list[float] = []
    async with JobManager(
        cwd=str(bench_root),
        registry_dir=state["registry_dir"],
        config=Config(max_log_bytes=ROTATE_BYTES),
    ) as jm:
        first = await jm.logs(job_id, lines=200)
        check_tail_lines(first.lines, state["bytes"])
        for index in range(TAIL_READS + 5):
            t0 = time.perf_counter()
            floor = floor_tail(live, 200)
            t1 = time.perf_counter()
            tail = read_tail(live, previous, 200)
            t2 = time.perf_counter()
            result = await jm.logs(job_id, lines=200)
            t3 = time.perf_counter()
            if index < 5:
                continue  # warm-up
            assert floor and len(tail.lines()) == len(first.lines)
            assert result.lines == first.lines
            floors.append((t1 - t0) * 1000)
            directs.append((t2 - t1) * 1000)
            vias.append((t3 - t2) * 1000)
    remove_logs(live)

    floor_med = median(floors)
    table = Table(f"5. tail read: 200 lines after {human_bytes(state['bytes'])}, {len(vias)} reads")
    table.add(
        "jm.logs(id, lines=200), median",
        f"{median(vias):.3f} ms",
        f"{floor_med:.3f} ms bare read+split",
        f"{median(vias) / floor_med:.1f}x",
        "< 2 ms",
        median(vias) < 2.0,
    )
    table.add(
        "segments.read_tail(live, prev, 200), median",
        f"{median(directs):.3f} ms",
        f"{floor_med:.3f} ms bare read+split",
        f"{median(directs) / floor_med:.1f}x",
        "< 2 ms",
        median(directs) < 2.0,
    )
    table.add("jm.logs p95", f"{p95(vias):.3f} ms", f"{p95(floors):.3f} ms", "", "")
    table.add("read_tail p95", f"{p95(directs):.3f} ms", f"{p95(floors):.3f} ms", "", "")
    publish(table)
