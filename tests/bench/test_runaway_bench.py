"""Issue 27 (output running away): the log path's throughput with the repeat detector on and
off, in one run, and the detector's own CPU per GiB.

    python -m pytest tests/bench/test_runaway_bench.py -s -p no:cacheprovider

The detector is a start-spec option the session does not pass yet (the next session wires
it): here `start_spec` is wrapped so a start asks for `repeatLimit` when the side says so.
The two sides alternate which goes first; the ratio is of their medians (benchlib's way).
Workloads: zeros (no line ends), `yes` (one line, a flood: the whole-run memcmp path), `seq`
(a counter: lines equal but for their digits, the digits-zeroed path) and varied lines
(`cat` of random words: the sampling path).
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from benchlib import (
    BENCH_BYTES,
    BENCH_PAIRS,
    EngineBench,
    GiB,
    MiB,
    Table,
    assert_exited_ok,
    human_bytes,
    median,
    publish,
    remove_logs,
    settle_disk,
    spread,
)

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.session import supervision
from jobs_tui.engine.shim.repeats import RepeatDetector

pytestmark = pytest.mark.timeout(3600)

N = BENCH_BYTES
ROTATE_BYTES = 8 * MiB
LIMIT = 1000
VARIED_FILE_BYTES = 64 * MiB
WORDS = (
    b"GET POST /api/v1/users ok error warn retry connect timeout cache miss hit user "
    b"session token refresh db query rows took ms queue job done failed started worker"
).split()


def varied_file(root: Path) -> Path:
    """64 MiB of lines of random words and numbers, made once (cat repeats it)."""
    path = root / "varied.txt"
    if not path.exists():
        rng = random.Random(27)
        lines, size = [], 0
        while size < VARIED_FILE_BYTES:
            line = b" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
            line += b" %d\n" % rng.randint(0, 10**6)
            lines.append(line)
            size += len(line)
        path.write_bytes(b"".join(lines)[:VARIED_FILE_BYTES])
    return path


def workloads(root: Path) -> dict[str, str]:
    varied = varied_file(root)
    copies = " ".join([str(varied)] * (N // VARIED_FILE_BYTES + 1))
    return {
        "zero": f"head -c {N} /dev/zero",
        "yes": f"yes 'ECONNREFUSED 127.0.0.1:5432' | head -c {N}",
        "seq": f"seq 1 1000000000 | head -c {N}",
        "varied": f"cat {copies} | head -c {N}",
    }


class Detecting:
    """Wraps the session's `start_spec`: while `on`, a start asks for the detector."""

    def __init__(self) -> None:
        self.on = False
        self.original = supervision.start_spec

    def __call__(self, *args, **kwargs):
        spec = self.original(*args, **kwargs)
        if self.on:
            spec["repeatLimit"] = LIMIT
        return spec


@pytest.fixture
def detecting(monkeypatch: pytest.MonkeyPatch) -> Detecting:
    wrapper = Detecting()
    monkeypatch.setattr(supervision, "start_spec", wrapper)
    return wrapper


def detector_cpu_per_gib(output: bytes) -> float:
    """The detector alone, in this process, over chunks of `output` of 64 KiB to 1 MiB (as
    the shim reads them), each copied into one reused buffer first (in cache, as the shim's
    read buffer is) and only the feeds timed: ms per GiB. The budget of lines keyed one by
    one (a few ms a second, LINE_RATE) is left out: it is bounded by time, not by bytes."""
    rng = random.Random(27)
    chunks, pos = [], 0
    while pos < len(output):
        size = rng.randint(64 * 1024, MiB)
        chunks.append(bytearray(output[pos : pos + size]))
        pos += size
    detector = RepeatDetector(LIMIT)
    detector.tokens = 0  # the steady state: its first second's budget of keyed lines spent
    buffer = bytearray(MiB)
    spent = 0.0
    for chunk in chunks:
        buffer[: len(chunk)] = chunk
        t0 = time.perf_counter()
        detector.feed(buffer, 0, len(chunk))
        spent += time.perf_counter() - t0
    return spent / (len(output) / GiB) * 1000


def sample_of(workload: str, root: Path) -> bytes:
    """64 MiB of what the workload writes, for the in-process figure."""
    size = 64 * MiB
    if workload == "zero":
        return bytes(size)
    if workload == "yes":
        line = b"ECONNREFUSED 127.0.0.1:5432\n"
        return (line * (size // len(line) + 1))[:size]
    if workload == "seq":
        out, n, total = [], 1, 0
        while total < size:
            block = b"".join(b"%d\n" % i for i in range(n, n + 100_000))
            out.append(block)
            total += len(block)
            n += 100_000
        return b"".join(out)[:size]
    return varied_file(root).read_bytes()[:size]


@pytest.mark.parametrize("workload", ["zero", "yes", "seq", "varied"])
async def test_throughput_with_the_repeat_detector_on_and_off(
    workload: str, bench_root: Path, detecting: Detecting
) -> None:
    command = workloads(bench_root)[workload]
    got: dict[bool, list[float]] = {True: [], False: []}
    cpu: dict[bool, list[float]] = {True: [], False: []}
    print(f"\n[repeats:{workload}] {human_bytes(N)} x {BENCH_PAIRS} per side: {command[:80]}")
    registry = bench_root / f"reg-rep-{workload}"
    config = Config(max_log_bytes=ROTATE_BYTES)
    async with JobManager(cwd=str(bench_root), registry_dir=str(registry), config=config) as jm:
        bench = EngineBench(jm)
        for index in range(BENCH_PAIRS + 1):  # index 0 warms both sides up
            order = [True, False] if index % 2 else [False, True]
            times = {}
            for on in order:
                detecting.on = on
                settle_disk()
                run, _ = await bench.run(command)
                assert_exited_ok(run.record)
                assert run.record.log_bytes == N, (run.record.log_bytes, N)
                remove_logs(run.record.log_path)
                times[on] = (run.total_s, run.shim.cpu_s)
            if index == 0:
                continue
            for on in (True, False):
                got[on].append(times[on][0])
                cpu[on].append(times[on][1])
            print(
                f"  run {index}: on {times[True][0]:6.3f}s  off {times[False][0]:6.3f}s   "
                f"shim CPU on {times[True][1]:.3f}s off {times[False][1]:.3f}s",
                flush=True,
            )
    ratio = median(got[False]) / median(got[True])
    cpu_ratio = median(cpu[True]) / median(cpu[False])
    alone = detector_cpu_per_gib(sample_of(workload, bench_root))
    off_ms_per_gib = median(cpu[False]) / (N / GiB) * 1000
    table = Table(f"issue 27: throughput, {workload}: {human_bytes(N)}, repeat detector")
    table.add(
        f"detector on, repeatLimit {LIMIT} (start() -> job-finished)",
        f"{N / MiB / median(got[True]):.0f} MiB/s",
        f"{N / MiB / median(got[False]):.0f} MiB/s detector off",
        f"{ratio:.2f}x",
        ">= 0.95x (at most 5% slower)",
        ratio >= 0.95,
    )
    table.add(
        "shim CPU per GiB, on (load-independent)",
        f"{median(cpu[True]) / (N / GiB) * 1000:.0f} ms",
        f"{off_ms_per_gib:.0f} ms off",
        f"{cpu_ratio:.2f}x",
        "(info)",
    )
    table.add(
        "the detector alone, in-process (64 KiB-1 MiB chunks)",
        f"{alone:.0f} ms/GiB",
        f"{off_ms_per_gib:.0f} ms/GiB the shim's whole log path",
        f"{alone / off_ms_per_gib * 100:.1f}%",
        "(info)",
    )
    table.add("on seconds", spread(got[True]))
    table.add("off seconds", spread(got[False]))
    publish(table)
