"""Shim loop edge: an output event handled after the exit path closed the pipe."""

from __future__ import annotations

import os

from jobs_tui.engine.shim.main import Shim


def test_output_event_after_the_pipe_closed_in_the_same_batch_is_ignored(tmp_path):
    spec = {
        "log": str(tmp_path / "j1.log"),
        "previous": str(tmp_path / "j1.log.1"),
        "maxLogBytes": 1024,
        "socket": str(tmp_path / "j1.sock"),
        "killGraceMs": 100,
    }
    shim = Shim(spec)
    read_end, write_end = os.pipe()
    os.write(write_end, b"last words\n")
    os.close(write_end)
    os.set_blocking(read_end, False)
    shim.out_fd = read_end
    shim.sel.register(read_end, 1, "out")
    assert shim.drain() == -1  # the exit path drains to end of input and closes the pipe
    assert shim.out_fd == -1
    shim.on_output()  # a readable event for it from the same select() batch
    shim.log.close()
    assert (tmp_path / "j1.log").read_bytes() == b"last words\n"
