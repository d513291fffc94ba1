"""A `\\r` progress bar, as build tools draw them: a snapshot's bytes."""

import sys
import time

w = sys.stdout.write
w("\x1b[1mDownloading\x1b[0m artefacts\n")
for i in range(0, 101, 5):
    bar = "█" * (i // 5) + "░" * (20 - i // 5)
    w(f"\r\x1b[36m{bar}\x1b[0m {i:3d}% \x1b[2m{i * 12:5d} KiB\x1b[0m")
    sys.stdout.flush()
    time.sleep(0.005)
w("\n\x1b[32m✓\x1b[0m done\n")
for i in range(0, 101, 25):
    w(f"\rcompiling {i:3d}%\x1b[K")
    sys.stdout.flush()
    time.sleep(0.005)
w("\rcompiled\x1b[K\n")
