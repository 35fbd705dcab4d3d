// SPDX-License-Identifier: Apache-2.0
#include "job/input_removal.hpp"

#include "common/errors.hpp"
#include "common/unique_fd.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>

namespace aesgpu {

namespace {

bool same_time(const timespec &a, const timespec &b) {
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

// The inode flags (chattr) of an open file or directory; 0 where the file system has none.
int inode_flags(int fd) {
    int flags = 0;
    return ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 ? flags : 0;
}

// Why the name `input` does not lead to exactly the data that was read, or none.
std::optional<std::string> why_the_name_is_not_the_data(const InputSource &source, const std::string &input) {
    const struct stat &read = source.status();
    struct stat named {};
    if (!S_ISREG(read.st_mode)) return "not a regular file";
    if (::lstat(input.c_str(), &named) != 0) return "it is no longer there";
    if (S_ISLNK(named.st_mode)) return "it is a symbolic link, and its target would stay";
    if (!same_file(named, read)) return "the name no longer leads to the file that was read";
    if (named.st_nlink > 1) return "it has other hard links, which would keep its data";
    return std::nullopt;
}

// Why unlink() would refuse the name, as far as can be told without trying, or none.
std::optional<std::string> why_unlink_would_refuse(const InputSource &source, const std::string &input) {
    const std::filesystem::path parent = std::filesystem::path(input).parent_path();
    const std::string directory = parent.empty() ? std::string(".") : parent.string();
    const std::string shown = quoted_name(directory);
    if (::faccessat(AT_FDCWD, directory.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
        if (errno == EROFS) return "its file system is read-only";
        if (errno == EACCES) return "this user may not remove names from its directory " + shown;
        return std::nullopt; // unlink() will say what is wrong
    }
    struct stat status {};
    const uid_t user = ::geteuid();
    if (::stat(directory.c_str(), &status) == 0 && (status.st_mode & S_ISVTX) != 0 && user != 0 &&
        status.st_uid != user && source.status().st_uid != user) {
        return "its directory " + shown + " is sticky, and neither it nor the file is this user's";
    }
    if ((inode_flags(source.fd()) & (FS_IMMUTABLE_FL | FS_APPEND_FL)) != 0) {
        return "it is marked immutable or append-only (chattr)";
    }
    const UniqueFd opened(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK));
    if (opened.valid() && (inode_flags(opened.get()) & (FS_IMMUTABLE_FL | FS_APPEND_FL)) != 0) {
        return "its directory " + shown + " is marked immutable or append-only (chattr)";
    }
    return std::nullopt;
}

// Why `input` cannot go now: the name no longer leads to exactly the data that was read, or the
// file changed while it was read (a same-size rewrite would be lost). None where it can.
std::optional<std::string> why_not_removable_now(const InputSource &source, const std::string &input) {
    if (std::optional<std::string> why = why_the_name_is_not_the_data(source, input)) return why;
    const struct stat &read = source.status();
    struct stat now {};
    if (::fstat(source.fd(), &now) != 0 || now.st_size != read.st_size || !same_time(now.st_mtim, read.st_mtim) ||
        !same_time(now.st_ctim, read.st_ctim)) {
        return "it changed while it was read";
    }
    return std::nullopt;
}

// After the output's commit: the same rules again, then unlink.
void remove_input(const InputSource &source, const std::string &input) {
    if (const std::optional<std::string> why = why_not_removable_now(source, input)) {
        throw IoError("not removing " + source.display_name() + ": " + *why + "; its output is in place");
    }
    if (::unlink(input.c_str()) != 0) throw IoError(errno_message("cannot remove", source.display_name(), errno));
}

} // namespace

void prepare_input_removal(const InputSource &source, const std::string &input, OutputSink &sink) {
    if (!sink.withdrawable()) throw OutputWrittenAsItGoes(sink.display_name());
    check_input_removable(source, input);
    sink.make_durable();
}

void check_input_removable(const InputSource &source, const std::string &input) {
    std::optional<std::string> why = why_the_name_is_not_the_data(source, input);
    if (!why) why = why_unlink_would_refuse(source, input);
    if (why) throw IoError("not removing " + source.display_name() + ": " + *why + "; nothing was written");
}

void commit_removing_input(OutputSink &sink, const InputSource &source, const std::string &input) {
    const std::string name = source.display_name();
    const auto refuse = [&name](const std::string &why) {
        throw IoError("not removing " + name + ": " + why + "; nothing was written");
    };
    // One run at a time removes an input: a run that removes one holds a lock on the file it read
    // until it ends, so another run (or thread) removing it too is refused here, before its output
    // appears. (Where the file system takes no locks, the checks after the commit still hold.)
    if (::flock(source.fd(), LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) refuse("another run is removing it");
    if (const std::optional<std::string> why = why_not_removable_now(source, input)) refuse(*why);
    sink.commit();
    remove_input(source, input);
}

} // namespace aesgpu
