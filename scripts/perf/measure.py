#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs one command and prints what it cost: wall seconds, user and system CPU seconds, and peak
resident memory (MiB) of the command and its children, on one line:
    wall=2.145 user=1.210 sys=9.870 rss_mib=66
Exits with the command's status. Usage: scripts/perf/measure.py COMMAND [ARG...]"""
import resource
import subprocess
import sys
import time

if len(sys.argv) < 2:
    sys.exit(__doc__)
start = time.monotonic()
status = subprocess.run(sys.argv[1:]).returncode
wall = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"wall={wall:.3f} user={usage.ru_utime:.3f} sys={usage.ru_stime:.3f} rss_mib={usage.ru_maxrss // 1024}")
sys.exit(status if status >= 0 else 128 - status)
