// SPDX-License-Identifier: Apache-2.0
#pragma once
// How one large read or write of a file is split across threads. One copy into tmpfs or out of
// the page cache runs at a few GB/s per thread, well below what memory and the GPU path deliver,
// so big files are read and written by several.
#include "common/worker_pool.hpp"

#include <sys/types.h>

#include <cstddef>

namespace aesgpu {

// Pieces of whole 4 KiB pages, at least 256 KiB: below that a hand-off to another thread costs
// more than the copy it saves.
inline constexpr PieceShape kFileCopyPieces{std::size_t{256} << 10, 4096};

// Threads for reading and writing one large file: 1 (plain read() and write()) below 8 hardware
// threads, where the extra threads only compete with the cipher's; else half of them, at most 8,
// where the gain flattens out (bench/NOTES.md).
[[nodiscard]] unsigned default_io_threads();

// Reads split over more threads cost more CPU than they save time: 4 GiB from /dev/shm on the H200
// host (scripts/perf/probes/write_paths.cpp) took 0.61 s and 0.15 CPU s/GiB with one thread, 0.21 s and
// 0.26 CPU s/GiB with eight, while the pipeline moves a file at about 4 GB/s. Two keep the
// reader well ahead of that.
inline constexpr unsigned kMaxReadThreads = 2;

// The largest page-cache folio a file system makes (a PMD's worth on x86-64): dropping pages from
// the cache goes back this far, since the kernel drops only whole folios.
inline constexpr off_t kLargestFolioBytes = off_t{2} << 20;

} // namespace aesgpu
