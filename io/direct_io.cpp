// SPDX-License-Identifier: Apache-2.0
#include "io/direct_io.hpp"

#include "common/errors.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>

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

DirectFile reopen_direct(int fd, int flags) {
    struct statfs fs {};
    if (::fstatfs(fd, &fs) == 0 && static_cast<long>(fs.f_type) == TMPFS_MAGIC) {
        return {{}, 0, "tmpfs keeps every file in its page cache"};
    }
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    UniqueFd direct(::open(self.c_str(), flags | O_DIRECT | O_CLOEXEC));
    if (!direct.valid()) {
        return {{}, 0, errno == EINVAL ? "the file system refuses O_DIRECT" : errno_message("cannot reopen", "it", errno)};
    }
    const std::optional<std::size_t> alignment = direct_io_alignment(direct.get());
    if (!alignment) return {{}, 0, "the file system refuses O_DIRECT"};
    return {std::move(direct), *alignment, {}};
}

bool mostly_in_page_cache(int fd, std::uint64_t start, std::uint64_t length) {
    constexpr int kSamples = 8;
    std::byte page[4096];
    int cached = 0;
    for (int i = 0; i < kSamples; ++i) {
        const std::uint64_t at = start + length / kSamples * static_cast<std::uint64_t>(i);
        iovec into{page, sizeof page};
        if (::preadv2(fd, &into, 1, static_cast<off_t>(at), RWF_NOWAIT) > 0) ++cached;
    }
    return cached * 2 > kSamples;
}

UniqueFd open_direct(const std::string &path, int flags, mode_t mode) {
    UniqueFd fd(::open(path.c_str(), flags | O_DIRECT | O_CLOEXEC, mode));
    if (!fd.valid() && errno != EINVAL) throw IoError(errno_message("cannot open", quoted_name(path), errno));
    return fd;
}

} // namespace aesgpu
