// SPDX-License-Identifier: Apache-2.0
#pragma once
// Direct I/O (O_DIRECT): reads and writes between the disk and the caller's buffers, past the
// page cache. Offsets, lengths and buffer addresses must then be multiples of the file's
// direct-I/O alignment; a file system that cannot do it refuses the open (EINVAL).
#include "common/unique_fd.hpp"

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace aesgpu {

// What the page size always satisfies where a file system does not say (statx without
// STATX_DIOALIGN: kernels before 6.1, or file systems that do not fill it in).
inline constexpr std::size_t kFallbackDirectAlignment = 4096;

// Threads of the direct requests' fallback engine (DirectRequestQueue without io_uring): one
// leaves a virtio disk half idle (8 GiB on the GPU hosts: 8.2 s read by one stream, 4.3-4.8 s by four).
inline constexpr unsigned kDirectIoStreams = 4;

// The alignment direct I/O on `fd` is given: the largest of statx's memory and offset alignments
// and the file system's block size (up to kFallbackDirectAlignment), else kFallbackDirectAlignment.
// None where the file system says it cannot do direct I/O at all (STATX_DIOALIGN given as 0).
[[nodiscard]] std::optional<std::size_t> direct_io_alignment(int fd);

// Opens `path` with O_DIRECT added to `flags`. An invalid descriptor where the file system refuses
// direct I/O (EINVAL), so that a caller can fall back to buffered I/O; throws IoError for every
// other failure.
[[nodiscard]] UniqueFd open_direct(const std::string &path, int flags, mode_t mode = 0600);

// A second descriptor for the file `fd` has open (through /proc/self/fd, so any name it had or
// an unnamed temporary file), with O_DIRECT and `flags` (O_RDONLY or O_WRONLY), and its alignment.
// Where that cannot be, the reason why instead, for -v: the file system refuses O_DIRECT, or it is
// tmpfs (which takes O_DIRECT opens from Linux 6.6 on but still copies through its page cache).
struct DirectFile {
    UniqueFd fd;
    std::size_t alignment = 0;
    std::string refusal; // empty when fd is valid
};
[[nodiscard]] DirectFile reopen_direct(int fd, int flags);

// True when `address`, `offset` and `length` are all multiples of `alignment` (a power of two).
[[nodiscard]] inline bool direct_aligned(const void *address, std::uint64_t offset, std::size_t length,
                                         std::size_t alignment) {
    const std::uintptr_t mask = alignment - 1;
    return alignment && ((reinterpret_cast<std::uintptr_t>(address) | offset | length) & mask) == 0;
}

// True when most of a sample of the file's pages (8 spread over [start, start + length)) are in
// the page cache already (mincore): reading it again from the disk would be slower. None where
// this process cannot see: since Linux 5.0 mincore() calls every page of a file resident unless
// the caller owns the file or may write it (a shared, read-only input).
[[nodiscard]] std::optional<bool> mostly_in_page_cache(int fd, std::uint64_t start, std::uint64_t length);

// `bytes` rounded up to a multiple of `alignment` (a power of two).
[[nodiscard]] constexpr std::size_t align_up(std::size_t bytes, std::size_t alignment) {
    return (bytes + alignment - 1) & ~(alignment - 1);
}

} // namespace aesgpu
