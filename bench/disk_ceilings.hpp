// SPDX-License-Identifier: Apache-2.0
#pragma once
// The disk's own ceilings for the bench's file stage: O_DIRECT passes that no cipher and no page
// cache slow down, to judge a file run against (a copy cannot beat reading its input and writing
// its output at once, where the disk shares its bandwidth between the two).
#include <cstdint>
#include <string>

namespace aesgpu {

// Requests in flight at once, each pass timed at both: one stream leaves a virtio disk half idle
// (8.2 s against 4.3-4.8 s with four for 8 GiB on the GPU hosts), and the direct file path keeps
// four (io/direct_io.hpp); sixteen shows whether the disk wants more.
inline constexpr unsigned kDiskCeilingDepths[] = {4, 16};

// Reads all of `path` with O_DIRECT, `streams` requests of 4 MiB in flight.
void direct_read_pass(const std::string &path, unsigned streams);
// Writes `bytes` (rounded up to the alignment) to a new file `path` with O_DIRECT, `streams`
// requests in flight, then fdatasync: the time until durable.
void direct_write_pass(const std::string &path, std::uint64_t bytes, unsigned streams);
// Both at once, each on a thread of its own: where the disk shares its bandwidth between reads and
// writes, no copy of the file can be faster.
void direct_copy_floor_pass(const std::string &from, const std::string &to, std::uint64_t bytes, unsigned streams);

// Why `path` has no disk to measure, by the file path's own rule (reopen_direct): tmpfs, whose
// O_DIRECT (Linux 6.6+) still copies through its page cache, or a file system that refuses
// O_DIRECT; empty where the disk can be measured.
[[nodiscard]] std::string why_no_disk_ceilings(const std::string &path);

// fsync of `path` and then of its directory, as OutputSink's durable commit does.
void make_file_durable(const std::string &path);

// Flushes `path` and asks the kernel to drop its pages from the page cache, so that the next run
// reads it from the disk. False where the kernel refused (posix_fadvise failed).
bool evict_from_page_cache(const std::string &path);

} // namespace aesgpu
