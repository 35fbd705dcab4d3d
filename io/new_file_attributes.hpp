// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a new output file is given when it is put in place: the replaced file's owner and group, or
// the input's group (where the process may), a mode, the input's times.
#include "common/interrupt_cleanup.hpp"
#include "io/output_path.hpp"
#include "io/output_policy.hpp"

#include <sys/stat.h>
#include <sys/types.h>

#include <optional>
#include <string>

namespace aesgpu {

struct NewFileAttributes {
    std::optional<mode_t> mode;
    std::optional<uid_t> owner;
    std::optional<gid_t> group;
    std::optional<struct stat> times_from;

    // For a new file at `target` (nothing there, a symbolic link, or a regular file it replaces).
    [[nodiscard]] static NewFileAttributes for_target(const OutputPath &target, const OutputPolicy &policy);
    // Sets them on `fd`, the output written. Throws IoError where the mode cannot be set.
    void apply(int fd, const std::string &display_name) const;
};

// The mode the kernel gives a new file in `directory` (the umask, or the directory's default
// ACL), learnt from an empty probe file made and removed in one step: the output itself is
// created 0600, so no one can open it before it is complete. 0600 when no probe can be made.
[[nodiscard]] mode_t new_file_mode(CleanupRegistry *cleanups, int directory, const std::string &target_name);

} // namespace aesgpu
