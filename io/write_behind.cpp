// SPDX-License-Identifier: Apache-2.0
#include "io/write_behind.hpp"

#include "common/errors.hpp"
#include "io/io_threads.hpp" // kLargestFolioBytes

#include <fcntl.h>
#include <linux/magic.h> // OVERLAYFS_SUPER_MAGIC
#include <sys/vfs.h>     // fstatfs
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace aesgpu {

WriteBehind::WriteBehind(int fd, std::string display_name, std::uint64_t window_bytes)
    : fd_(fd), display_name_(std::move(display_name)) {
    const auto page = static_cast<off_t>(::sysconf(_SC_PAGESIZE));
    window_ = std::max(page, static_cast<off_t>(window_bytes) / page * page);
    sent_ = dropped_ = std::max<off_t>(0, ::lseek(fd_, 0, SEEK_CUR)) / page * page;
    struct statfs fs {};
    whole_file_sync_ = ::fstatfs(fd_, &fs) == 0 && fs.f_type == OVERLAYFS_SUPER_MAGIC;
}

void WriteBehind::push() {
    const off_t now = ::lseek(fd_, 0, SEEK_CUR);
    if (now < 0 || now - sent_ < window_) return;
    if (whole_file_sync_) {
        // Everything written so far reaches the disk, the last window too: one call, not two.
        if (::fdatasync(fd_) != 0) throw IoError(errno_message("error writing", display_name_, errno));
    } else if (::sync_file_range(fd_, sent_, now - sent_, SYNC_FILE_RANGE_WRITE) != 0) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
    sent_ = now;
    while (sent_ - dropped_ > window_) {
        const off_t length = sent_ - window_ - dropped_;
        constexpr unsigned kWritten = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
        if (!whole_file_sync_ && ::sync_file_range(fd_, dropped_, length, kWritten) != 0) {
            throw IoError(errno_message("error writing", display_name_, errno));
        }
        // From a little before: only whole folios go, and a large one may straddle the last end.
        const off_t from = std::max<off_t>(0, dropped_ - kLargestFolioBytes);
        dropped_ += length;
        (void)::posix_fadvise(fd_, from, dropped_ - from, POSIX_FADV_DONTNEED);
    }
}

} // namespace aesgpu
