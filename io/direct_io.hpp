// SPDX-License-Identifier: Apache-2.0
#pragma once
// Direct I/O (O_DIRECT): reads and writes between the disk and the caller's buffers, past the
// page cache. Offsets, lengths and buffer addresses must then be multiples of the file's
// direct-I/O alignment; a file system that cannot do it refuses the open (EINVAL).
#include "common/unique_fd.hpp"

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>

namespace aesgpu {

// What the page size always satisfies where a file system does not say (statx without
// STATX_DIOALIGN: kernels before 6.1, or file systems that do not fill it in).
inline constexpr std::size_t kFallbackDirectAlignment = 4096;

// The alignment direct I/O on `fd` needs: the larger of statx's memory and offset alignments,
// else kFallbackDirectAlignment. None where the file system says it cannot do direct I/O at all
// (STATX_DIOALIGN given as 0).
[[nodiscard]] std::optional<std::size_t> direct_io_alignment(int fd);

// Opens `path` with O_DIRECT added to `flags`. An invalid descriptor where the file system refuses
// direct I/O (EINVAL), so that a caller can fall back to buffered I/O; throws IoError for every
// other failure.
[[nodiscard]] UniqueFd open_direct(const std::string &path, int flags, mode_t mode = 0600);

// `bytes` rounded up to a multiple of `alignment` (a power of two).
[[nodiscard]] constexpr std::size_t align_up(std::size_t bytes, std::size_t alignment) {
    return (bytes + alignment - 1) & ~(alignment - 1);
}

} // namespace aesgpu
