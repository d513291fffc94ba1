"""The throughput benchmark's switch: a shim started while it is set writes no time index."""

from __future__ import annotations

from pathlib import Path

from jobs_tui.engine.shim.timeindex import ENV_BENCH_OFF, TimeIndexWriter, parse


def test_the_benchmarks_switch_keeps_a_shim_from_writing_an_index(tmp_path: Path, monkeypatch):
    now = [1_700_000_000.0]
    monkeypatch.setenv(ENV_BENCH_OFF, "1")
    index = TimeIndexWriter(str(tmp_path / "off.time"), lambda: now[0])
    for offset in range(0, 5000, 100):
        now[0] += 0.2
        index.note(offset)
    index.drop_before(1000)
    index.close()
    assert not (tmp_path / "off.time").exists() and len(index.pairs) == 0
    monkeypatch.setenv(ENV_BENCH_OFF, "0")  # anything but "1": the index is written
    index = TimeIndexWriter(str(tmp_path / "on.time"), lambda: now[0])
    index.note(0)
    assert parse(Path(index.path).read_bytes()) == [(0, int(now[0] * 1000))]
