// SPDX-License-Identifier: Apache-2.0
#include "io/direct_io.hpp"

#include "common/errors.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace aesgpu {

std::optional<std::size_t> direct_io_alignment(int fd) {
    struct statx status {};
    if (::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &status) != 0 || (status.stx_mask & STATX_DIOALIGN) == 0) {
        return kFallbackDirectAlignment;
    }
    if (status.stx_dio_mem_align == 0 || status.stx_dio_offset_align == 0) return std::nullopt;
    // Whole file-system blocks where they fit the fallback: ext4 takes a direct write of part of a
    // block (512-byte aligned) into unwritten extents only exclusively, after every write in
    // flight has ended, and io_uring hands each such write to a worker thread that waits.
    std::size_t block = status.stx_blksize;
    if (block > kFallbackDirectAlignment || (block & (block - 1)) != 0) block = 0;
    return std::max<std::size_t>({status.stx_dio_mem_align, status.stx_dio_offset_align, block});
}

DirectFile reopen_direct(int fd, int flags) {
    struct statfs fs {};
    if (::fstatfs(fd, &fs) == 0 && static_cast<long>(fs.f_type) == TMPFS_MAGIC) {
        return {{}, 0, "tmpfs keeps every file in its page cache"};
    }
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    UniqueFd direct(::open(self.c_str(), flags | O_DIRECT | O_CLOEXEC));
    if (!direct.valid()) {
        return {
            {}, 0, errno == EINVAL ? "the file system refuses O_DIRECT" : errno_message("cannot reopen", "it", errno)};
    }
    const std::optional<std::size_t> alignment = direct_io_alignment(direct.get());
    if (!alignment) return {{}, 0, "the file system refuses O_DIRECT"};
    return {std::move(direct), *alignment, {}};
}

std::optional<bool> mostly_in_page_cache(int fd, std::uint64_t start, std::uint64_t length) {
    // The kernel's rule (can_do_mincore): the file's owner (or CAP_FOWNER), or one who may write it.
    struct stat status {};
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    const bool visible = (::fstat(fd, &status) == 0 && (status.st_uid == ::geteuid() || ::geteuid() == 0)) ||
                         ::faccessat(AT_FDCWD, self.c_str(), W_OK, AT_EACCESS) == 0;
    if (!visible) return std::nullopt;
    // mincore() of a mapping that is never touched: a read to probe (even preadv2 with
    // RWF_NOWAIT) starts readahead of what it misses, and a hole would count as cached.
    constexpr std::uint64_t kSamples = 8;
    constexpr std::uint64_t kSampleBytes = std::uint64_t{64} << 10;
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    std::uint64_t resident = 0;
    std::uint64_t pages = 0;
    for (std::uint64_t i = 0; i < kSamples; ++i) {
        const std::uint64_t at = (start + length / kSamples * i) / page * page;
        const std::uint64_t end = std::min(start + length, at + kSampleBytes);
        if (end <= at) continue;
        const std::size_t bytes = static_cast<std::size_t>(end - at);
        void *const mapped = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(at));
        if (mapped == MAP_FAILED) return false;
        std::vector<unsigned char> in_core((bytes + page - 1) / page);
        if (::mincore(mapped, bytes, in_core.data()) == 0) {
            for (const unsigned char flag : in_core) resident += flag & 1;
            pages += in_core.size();
        }
        ::munmap(mapped, bytes);
    }
    return pages > 0 && resident * 2 > pages;
}

UniqueFd open_direct(const std::string &path, int flags, mode_t mode) {
    UniqueFd fd(::open(path.c_str(), flags | O_DIRECT | O_CLOEXEC, mode));
    if (!fd.valid() && errno != EINVAL) throw IoError(errno_message("cannot open", quoted_name(path), errno));
    return fd;
}

} // namespace aesgpu
