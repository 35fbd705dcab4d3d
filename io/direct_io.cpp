// SPDX-License-Identifier: Apache-2.0
#include "io/direct_io.hpp"

#include "common/errors.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

namespace aesgpu {

std::optional<std::size_t> direct_io_alignment(int fd) {
    struct statx status {};
    if (::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &status) != 0 || (status.stx_mask & STATX_DIOALIGN) == 0) {
        return kFallbackDirectAlignment;
    }
    if (status.stx_dio_mem_align == 0 || status.stx_dio_offset_align == 0) return std::nullopt;
    return std::max<std::size_t>(status.stx_dio_mem_align, status.stx_dio_offset_align);
}

UniqueFd open_direct(const std::string &path, int flags, mode_t mode) {
    UniqueFd fd(::open(path.c_str(), flags | O_DIRECT | O_CLOEXEC, mode));
    if (!fd.valid() && errno != EINVAL) throw IoError(errno_message("cannot open", quoted_name(path), errno));
    return fd;
}

} // namespace aesgpu
