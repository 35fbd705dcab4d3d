#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints how many of a file's pages are in the page cache, as mincore(2) sees them through a
mapping that touches nothing (reading a page, even with RWF_NOWAIT, may start readahead).

Usage: cached_pages.py FILE  ->  "RESIDENT TOTAL" (4 KiB pages of the whole file)"""
import ctypes
import os
import sys

PAGE = 4096
PROT_READ, MAP_SHARED = 1, 1

fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
pages = (size + PAGE - 1) // PAGE
if pages == 0:
    print(0, 0)
    sys.exit(0)
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
address = libc.mmap(None, pages * PAGE, PROT_READ, MAP_SHARED, fd, 0)
if address in (None, ctypes.c_void_p(-1).value):
    sys.exit("mmap: " + os.strerror(ctypes.get_errno()))
resident = (ctypes.c_ubyte * pages)()
if libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(pages * PAGE), resident) != 0:
    sys.exit("mincore: " + os.strerror(ctypes.get_errno()))
print(sum(page & 1 for page in resident), pages)
