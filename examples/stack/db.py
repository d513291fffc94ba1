"""A database stand-in: it starts slowly, says when it is ready, then serves until stopped.

Ready on a log line (`ready = { log = "ready to accept connections" }`), as PostgreSQL is;
stopped with SIGINT, it says goodbye and exits 0.
"""

import signal
import sys
import time

DELAY_S = 0.3


def main() -> int:
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("db: starting up", flush=True)
    time.sleep(DELAY_S)
    print("db: database system is ready to accept connections", flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        print("db: shut down", flush=True)


if __name__ == "__main__":
    sys.exit(main())
