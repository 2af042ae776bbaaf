#!/usr/bin/env python3
"""ptydrive.py OUT -- PROGRAM ARGS...: run PROGRAM on a pseudo-terminal,
type each line of stdin (Python escapes: \\x03 is Ctrl-C, \\t a tab, \\r
Enter), waiting for the output to settle after each, and write everything
the terminal showed to OUT. Exits with the program's exit status."""
import os
import pty
import select
import sys
import time

out_path = sys.argv[1]
argv = sys.argv[3:]
keys = [l.rstrip("\n").encode().decode("unicode_escape").encode("latin-1")
        for l in sys.stdin if l.strip()]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
seen = b""


def settle(quiet=0.4, limit=15.0):
    """Read until nothing arrives for `quiet` seconds (or `limit`)."""
    global seen
    end = time.time() + limit
    last = time.time()
    while time.time() < end and time.time() - last < quiet:
        r, _, _ = select.select([fd], [], [], 0.05)
        if not r:
            continue
        try:
            d = os.read(fd, 4096)
        except OSError:
            return
        if not d:
            return
        seen += d
        last = time.time()


settle(0.8)
for k in keys:
    os.write(fd, k)
    settle()
settle()
_, st = os.waitpid(pid, 0)
with open(out_path, "wb") as f:
    f.write(seen)
sys.exit(os.waitstatus_to_exitcode(st) & 0xff)
