// SPDX-License-Identifier: Apache-2.0
#include "io/output_path.hpp"

#include "common/errors.hpp"

#include <linux/magic.h> // PROC_SUPER_MAGIC
#include <sys/vfs.h>     // statfs

#include <cerrno>
#include <system_error>

namespace aesgpu {

bool names_a_system_stream(const std::string &given) {
    const std::filesystem::path path = given;
    const std::filesystem::path parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    struct statfs file_system {};
    if (::statfs(parent.c_str(), &file_system) == 0 && file_system.f_type == PROC_SUPER_MAGIC) return true;
    std::error_code error;
    return std::filesystem::canonical(parent, error) == "/dev" && !error;
}

OutputPath resolve_output_path(const std::string &given) {
    OutputPath target{.path = given};
    const bool link = ::lstat(given.c_str(), &target.status) == 0 && S_ISLNK(target.status.st_mode);
    if (link && !names_a_system_stream(given)) {
        target.exists = true;
        target.is_link = true;
        return target;
    }
    if (::stat(given.c_str(), &target.status) == 0) {
        target.exists = true;
        // A system stream that is a regular file (/dev/fd/3 of `3>file`) is replaced where it lies.
        // (Others are opened by the name given.)
        if (link && S_ISREG(target.status.st_mode)) {
            std::error_code error;
            target.path = std::filesystem::canonical(given, error);
            if (error) throw IoError(errno_message("cannot use", quoted_name(given), error.value()));
        }
        return target;
    }
    if (errno != ENOENT) throw IoError(errno_message("cannot use", quoted_name(given), errno));
    return target;
}

} // namespace aesgpu
