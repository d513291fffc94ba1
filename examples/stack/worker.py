"""A worker that crash-loops: it works a moment, then fails (exit 1), every time.

With `restart = "on-failure"` and `max_restarts = 3` it is restarted three times, then
stays failed: the crash loop an agent is told of.
"""

import sys
import time


def main() -> int:
    print("worker: picking up jobs", flush=True)
    time.sleep(0.2)
    print("worker: lost the connection to the queue", file=sys.stderr, flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
