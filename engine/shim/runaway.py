"""Output running away (issue 27, feature 4), the shim's side: the repeat note and the cap
on the total output. Stdlib only, loaded only by a job started with either option.

Start spec (all optional, off when absent):
  `repeatLimit` n >= 2       the same line (masked, repeats.py) n times in a row raises
                             a note: a `repeating` event, and `repeating` in `state`/`.end`;
  `maxOutputBytes` n >= 1    when the job's total output reaches n bytes,
  `onLimit` "stop" | "kill"  its tree is SIGSTOPped (default; `{"op": "resume"}` sends
                             SIGCONT and lifts the cap, or sets the new one it names) or
                             SIGKILLed (end reason `output-limit`); an `output-limit` event.

What the wiring reads (camelCase JSON, beside the other fields; readers keep unknown ones):
  repeating:   {"line": first line (raw: sanitize it), "count": n, "since": ms, "ongoing": b,
                "approx": b (counted in part from sampled bytes, see repeats.py)}
  outputLimit: {"maxBytes": n, "onLimit": "stop"|"kill", "reachedAt": ms|null,
                "atBytes": n|null, "stopped": b}
The cap is checked after each read (up to 1 MiB), so the log may pass it by one read.
"""

import os
from _signal import SIGCONT, SIGSTOP

from . import sweep
from .protocol import EV_OUTPUT_LIMIT, EV_REPEATING, ON_LIMIT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .main import Shim


def _positive(spec: dict, key: str, least: int) -> int | None:
    value = spec.get(key)
    if value is None:
        return None
    if type(value) is not int or value < least:
        raise ValueError(f"{key} {value!r}: a whole number, at least {least}")
    return value


class Runaway:
    """The repeat detector on the log writer and the output cap, for one job."""

    def __init__(self, shim: "Shim", spec: dict) -> None:
        self.shim = shim
        limit = _positive(spec, "repeatLimit", 2)
        self.max_bytes = _positive(spec, "maxOutputBytes", 1)
        self.on_limit = spec.get("onLimit") or "stop"
        if self.on_limit not in ON_LIMIT:
            raise ValueError(f"onLimit {self.on_limit!r}: one of {', '.join(ON_LIMIT)}")
        self.detector = None
        if limit is not None:
            from .repeats import RepeatDetector

            self.detector = RepeatDetector(limit)
            shim.log.detector = self.detector
        self.raised = 0  # notes broadcast
        self.armed = self.max_bytes is not None  # the cap acts when reached
        self.reached_at: int | None = None  # when it acted last (kept after a resume)
        self.at_bytes: int | None = None
        self.stopped = False  # the tree is SIGSTOPped by the cap

    def fields(self) -> dict:
        """What `state` and the `.end` file carry (nothing until there is something)."""
        found: dict = {}
        note = self.detector.fields() if self.detector is not None else None
        if note is not None:
            found["repeating"] = dict(note)
        if self.max_bytes is not None or self.reached_at is not None:
            found["outputLimit"] = {
                "maxBytes": self.max_bytes,
                "onLimit": self.on_limit,
                "reachedAt": self.reached_at,
                "atBytes": self.at_bytes,
                "stopped": self.stopped,
            }
        return found

    def after_read(self) -> None:
        """After each read into the log: a new note goes out; the cap acts once reached."""
        shim = self.shim
        detector = self.detector
        if detector is not None and detector.raised != self.raised:
            self.raised = detector.raised
            shim.server.broadcast({"ev": EV_REPEATING, "repeating": dict(detector.fields())})
        if not self.armed or shim.log.total < self.max_bytes or shim.exit_status is not None:
            return
        from .ending import now_ms

        self.armed = False
        self.reached_at, self.at_bytes = now_ms(), shim.log.total
        if self.on_limit == "stop":
            sweep.signal_tree(os.getpid(), SIGSTOP)
            self.stopped = True
        else:
            shim.kill("SIGKILL", 0, "output-limit")
        shim.server.broadcast({"ev": EV_OUTPUT_LIMIT, **self.fields()})

    def resume(self, message: dict) -> dict:
        """`{"op": "resume", "maxOutputBytes": n?}`: SIGCONT a stopped tree; the cap is off
        from now on, or `n` (more than the output so far). `reachedAt`/`atBytes` stay:
        the fields say it was reached."""
        shim = self.shim
        if not self.stopped:
            return {"ok": False, "error": "not stopped by its output limit"}
        new = message.get("maxOutputBytes")
        if new is not None and (type(new) is not int or new <= shim.log.total):
            return {"ok": False, "error": f"maxOutputBytes {new!r}: more than {shim.log.total}"}
        self.cont()
        self.max_bytes, self.armed = new, new is not None
        return {"ok": True, "maxOutputBytes": new}

    def cont(self) -> None:
        """SIGCONT the tree (a resume, or a kill: a stopped process takes TERM only then)."""
        if self.stopped:
            self.stopped = False
            sweep.signal_tree(os.getpid(), SIGCONT)
