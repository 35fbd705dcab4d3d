// SPDX-License-Identifier: Apache-2.0
#include "io/new_file_attributes.hpp"

#include "common/errors.hpp"
#include "common/unique_fd.hpp"
#include "io/hidden_name.hpp"

#include <fcntl.h>

#include <cerrno>

namespace aesgpu {

NewFileAttributes NewFileAttributes::for_target(const OutputPath &target, const OutputPolicy &policy) {
    NewFileAttributes attributes;
    if (policy.input_status && S_ISREG(policy.input_status->st_mode)) {
        // The input's group too: its group bits are meant for that group, and where the process
        // may not set it (not a member) apply() drops them, as gzip does.
        attributes.mode = policy.input_status->st_mode & 0777;
        attributes.group = policy.input_status->st_gid;
        attributes.times_from = *policy.input_status;
    }
    if (target.exists && !target.is_link) {
        // -f replaces the contents as `> file` would: the owner, group and permissions stay (never
        // set-user-ID, set-group-ID or sticky), and never wider than the input's.
        const struct stat &existing = target.status;
        attributes.mode = existing.st_mode & 0777 & (attributes.mode ? *attributes.mode : 0777);
        attributes.owner = existing.st_uid;
        attributes.group = existing.st_gid;
    }
    return attributes;
}

void NewFileAttributes::apply(int fd, const std::string &display_name) const {
    std::optional<mode_t> final_mode = mode;
    if (owner || group) {
        // Keeping another user's ownership needs privilege; keeping the group needs membership.
        // Where neither is allowed, the file is the caller's, as any new file would be, and the
        // group's permissions, meant for the old group, are not handed to the new one.
        const uid_t new_owner = owner.value_or(static_cast<uid_t>(-1));
        const gid_t new_group = group.value_or(static_cast<gid_t>(-1));
        if (::fchown(fd, new_owner, new_group) != 0 && ::fchown(fd, static_cast<uid_t>(-1), new_group) != 0) {
            // Neither: the group check below drops the group's permissions.
        }
        struct stat now {};
        if (final_mode && group && (::fstat(fd, &now) != 0 || now.st_gid != *group)) {
            *final_mode &= ~static_cast<mode_t>(070);
        }
    }
    if (final_mode && ::fchmod(fd, *final_mode) != 0) {
        throw IoError(errno_message("cannot set permissions of", display_name, errno));
    }
    if (times_from) {
        const timespec times[2] = {times_from->st_atim, times_from->st_mtim};
        (void)::futimens(fd, times); // best effort, as gzip: the contents are what matter
    }
}

mode_t new_file_mode(CleanupRegistry *cleanups, int directory, const std::string &target_name) {
    const std::string probe = hidden_name(target_name);
    mode_t mode = 0600;
    (void)InterruptCleanup::after(
        cleanups,
        [&] {
            UniqueFd fd(::openat(directory, probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666));
            struct stat st {};
            if (fd.valid() && ::fstat(fd.get(), &st) == 0) mode = st.st_mode & 0777;
            if (fd.valid()) (void)::unlinkat(directory, probe.c_str(), 0);
            return false; // nothing left to undo
        },
        {});
    return mode;
}

} // namespace aesgpu
