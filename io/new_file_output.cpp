// SPDX-License-Identifier: Apache-2.0
#include "io/new_file_output.hpp"

#include "common/errors.hpp"
#include "io/input_source.hpp" // same_file

#include <fcntl.h>
#include <linux/fs.h> // FS_IOC_GETFLAGS, FS_APPEND_FL
#include <stdio.h>    // renameat2
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <utility>

namespace aesgpu {

namespace {

OutputNeedsOverwrite exists_error(const std::string &name) {
    return {name + " already exists", "overwrite"};
}

std::string fd_link(int fd) {
    return "/proc/self/fd/" + std::to_string(fd);
}

// An unnamed file in `directory`, created with the mode the kernel gives a new file there (the
// umask, or the directory's default ACL); nothing when the file system or kernel has no O_TMPFILE,
// or when it could not be linked by name later (no /proc).
UniqueFd open_unnamed_temporary(int directory, const std::string &display_directory) {
    UniqueFd fd(::openat(directory, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666));
    if (!fd.valid()) {
        if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOENT) return {};
        throw IoError(errno_message("cannot create a file in", display_directory, errno));
    }
    struct stat opened {};
    struct stat linked {};
    if (::fstat(fd.get(), &opened) != 0 || ::stat(fd_link(fd.get()).c_str(), &linked) != 0 ||
        !same_file(opened, linked)) {
        return {};
    }
    return fd;
}

// True when the directory (an O_PATH descriptor) has the append-only attribute (chattr +a): a
// file can be added there, but none renamed or removed. False where the flags cannot be read.
bool append_only(int directory) {
    const UniqueFd fd(::openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK));
    int flags = 0;
    return fd.valid() && ::ioctl(fd.get(), FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_APPEND_FL) != 0;
}

void refuse_unplaceable(const OutputPath &target, const std::string &name, const OutputPolicy &policy) {
    if (target.is_link) {
        // Never written through: whoever could make the link could aim it at any file of ours
        // (a directory another user may write). The output takes the link's place, as gzip's does.
        if (!policy.overwrite) throw OutputNeedsOverwrite(name + " is a symbolic link", "replace");
    } else if (target.exists && !policy.overwrite) {
        throw exists_error(name);
    }
}

} // namespace

NewFileOutput::NewFileOutput(std::string display_name, UniqueFd directory, std::string target_name,
                             const OutputPolicy &policy, NewFileAttributes attributes)
    : display_name_(std::move(display_name)), directory_(std::move(directory)), target_name_(std::move(target_name)),
      interrupt_cleanups_(policy.interrupt_cleanups), attributes_(attributes), overwrite_(policy.overwrite) {}

NewFileOutput NewFileOutput::create(const OutputPath &target, std::string display_name, const OutputPolicy &policy) {
    refuse_unplaceable(target, display_name, policy);
    const NewFileAttributes attributes = NewFileAttributes::for_target(target, policy);
    const std::filesystem::path directory_path =
        target.path.has_parent_path() ? target.path.parent_path() : std::filesystem::path(".");
    std::string target_name = target.path.filename().string();
    const std::string display_directory = quoted_name(directory_path.string());
    if (target_name.empty()) throw IoError("cannot write " + display_name + ": a file name cannot end in '/'");
    if (target_name == "." || target_name == "..")
        throw IoError("cannot write " + display_name + ": it is a directory");
    UniqueFd directory(::open(directory_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!directory.valid()) throw IoError(errno_message("cannot open the directory", display_directory, errno));

    UniqueFd file = policy.unnamed_temporary ? open_unnamed_temporary(directory.get(), display_directory) : UniqueFd();
    // Replacing a file, or naming a temporary one, ends in a rename that an append-only directory
    // refuses, and what was made for it could not be removed either: refuse before making anything.
    // (An unnamed temporary file is linked in as a new name, which such a directory allows.)
    if ((!file.valid() || target.exists) && append_only(directory.get())) {
        throw IoError("cannot " + std::string(target.exists ? "replace " : "create ") + display_name +
                      ": its directory " + display_directory +
                      " is append-only (chattr +a), where nothing can be renamed or removed, so the output could "
                      "not be put in place whole; write it elsewhere");
    }
    NewFileOutput output(std::move(display_name), std::move(directory), std::move(target_name), policy, attributes);
    output.file_ = std::move(file);
    if (!output.file_.valid()) output.make_named_temporary(display_directory);
    return output;
}

// Where there is no unnamed temporary file: a hidden named one, private (0600) until it is complete,
// which place() gives the mode a new file in its directory gets (unless it has one already).
void NewFileOutput::make_named_temporary(const std::string &display_directory) {
    const int dir = directory_.get();
    if (!attributes_.mode) attributes_.mode = new_file_mode(interrupt_cleanups_, dir, target_name_);
    HiddenFile hidden = make_hidden_file(
        interrupt_cleanups_, dir, target_name_,
        [&](const char *file) {
            file_ = UniqueFd(::openat(dir, file, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600));
            return file_.valid() ? 0 : errno;
        },
        "cannot create a file in", display_directory);
    named_temporary_ = TemporaryHiddenFile(dir, std::move(hidden));
}

void NewFileOutput::place(bool durable) {
    if (durable && ::fsync(file_.get()) != 0) throw IoError(errno_message("error writing", display_name_, errno));
    if (!named_temporary_.exists()) {
        // Linked by its descriptor, so closed after: O_TMPFILE exists only on local file systems,
        // where close() reports nothing that write() did not.
        link_into_place();
        if (file_.close() != 0) throw IoError(errno_message("error writing", display_name_, errno));
    } else {
        if (file_.close() != 0) throw IoError(errno_message("error writing", display_name_, errno));
        rename_into_place();
        named_temporary_.keep();
    }
    if (durable) sync_directory();
}

// An unnamed temporary file gets its name by linkat(); -f links it under a hidden name first
// and renames that over the target, so the target is replaced in one step.
void NewFileOutput::link_into_place() {
    const std::string source = fd_link(file_.get());
    const int dir = directory_.get();
    if (!overwrite_) {
        if (::linkat(AT_FDCWD, source.c_str(), dir, target_name_.c_str(), AT_SYMLINK_FOLLOW) == 0) return;
        if (errno == EEXIST) throw exists_error(display_name_);
        throw IoError(errno_message("cannot create", display_name_, errno));
    }
    // The hidden name is registered for removal until the rename has taken it.
    const HiddenFile hidden = make_hidden_file(
        interrupt_cleanups_, dir, target_name_,
        [&](const char *name) {
            return ::linkat(AT_FDCWD, source.c_str(), dir, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
        },
        "cannot create", display_name_);
    if (::renameat(dir, hidden.name.c_str(), dir, target_name_.c_str()) != 0) {
        const int error = errno;
        (void)::unlinkat(dir, hidden.name.c_str(), 0);
        throw IoError(errno_message("cannot replace", display_name_, error));
    }
}

// A named temporary file is renamed onto the target; without overwrite, never over a file that
// appeared while we were writing.
void NewFileOutput::rename_into_place() {
    const int dir = directory_.get();
    const char *from = named_temporary_.name().c_str();
    const char *to = target_name_.c_str();
    if (!overwrite_) {
        if (::renameat2(dir, from, dir, to, RENAME_NOREPLACE) == 0) return;
        if (errno == EEXIST) throw exists_error(display_name_);
        if (errno != EINVAL && errno != ENOSYS) throw IoError(errno_message("cannot create", display_name_, errno));
        // The file system cannot promise "no replace": check, then rename.
        struct stat st {};
        if (::fstatat(dir, to, &st, AT_SYMLINK_NOFOLLOW) == 0) throw exists_error(display_name_);
    }
    if (::renameat(dir, from, dir, to) != 0) throw IoError(errno_message("cannot create", display_name_, errno));
}

void NewFileOutput::sync_directory() {
    // directory_ is O_PATH, which fsync() refuses: open the directory itself through it.
    const UniqueFd directory(::openat(directory_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!directory.valid() || ::fsync(directory.get()) != 0) {
        throw IoError(errno_message("cannot sync the directory of", display_name_, errno));
    }
}

} // namespace aesgpu
