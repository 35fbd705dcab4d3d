// SPDX-License-Identifier: Apache-2.0
#include "job/input_removal.hpp"

#include "common/errors.hpp"
#include "common/unique_fd.hpp"
#include "io/hidden_name.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h> // renameat2
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

// An input taken from its name for its removal: renamed to a hidden name in its directory, which
// only one run can do; given its name back unless removed.
class ClaimedInput {
public:
    ClaimedInput(const std::string &input, const std::string &display_name, CleanupRegistry *cleanups)
        : display_name_(display_name) {
        const std::filesystem::path path = input;
        const std::filesystem::path parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
        name_ = path.filename().string();
        directory_ = UniqueFd(::open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (!directory_.valid()) throw IoError(errno_message("cannot remove", display_name_, errno));
        int error = EEXIST;
        for (int attempt = 0; attempt < 100 && error == EEXIST; ++attempt) {
            hidden_ = hidden_name(name_);
            // Registered as one step with the rename: a signal after it finds the name given back.
            given_back_on_interrupt_ = InterruptCleanup::after(
                cleanups,
                [&] {
                    error = take(RENAME_NOREPLACE);
                    // A file system that cannot promise "no replace": the name is random.
                    if (error == EINVAL) error = take(0);
                    return error == 0;
                },
                [this] { give_back(); });
        }
        if (error == ENOENT)
            throw IoError("not removing " + display_name_ +
                          ": it is no longer there (another run "
                          "took it?); nothing was written");
        if (error != 0) throw IoError(errno_message("cannot remove", display_name_, error));
    }
    ClaimedInput(const ClaimedInput &) = delete;
    ClaimedInput &operator=(const ClaimedInput &) = delete;
    ~ClaimedInput() {
        given_back_on_interrupt_.release();
        if (!hidden_.empty()) give_back();
    }

    // True when what was taken is the file that was read.
    [[nodiscard]] bool holds(const struct stat &read) const {
        struct stat taken {};
        return ::fstatat(directory_.get(), hidden_.c_str(), &taken, AT_SYMLINK_NOFOLLOW) == 0 && same_file(taken, read);
    }

    void remove() {
        given_back_on_interrupt_.release();
        if (::unlinkat(directory_.get(), hidden_.c_str(), 0) != 0) {
            throw IoError(errno_message("cannot remove", display_name_, errno));
        }
        hidden_.clear();
    }

private:
    // Renames the input to the hidden name; 0 or the errno.
    int take(unsigned flags) {
        const int dir = directory_.get();
        return ::renameat2(dir, name_.c_str(), dir, hidden_.c_str(), flags) == 0 ? 0 : errno;
    }

    // Where a file took the name meanwhile, the input stays under the hidden one (never lost).
    void give_back() noexcept {
        (void)::renameat2(directory_.get(), hidden_.c_str(), directory_.get(), name_.c_str(), RENAME_NOREPLACE);
    }

    std::string display_name_;
    UniqueFd directory_;
    std::string name_;
    std::string hidden_;
    InterruptCleanup given_back_on_interrupt_;
};

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

void commit_removing_input(OutputSink &sink, const InputSource &source, const std::string &input,
                           CleanupRegistry *cleanups) {
    const std::string name = source.display_name();
    const auto refuse = [&name](const std::string &why) {
        throw IoError("not removing " + name + ": " + why + "; nothing was written");
    };
    if (const std::optional<std::string> why = why_the_name_is_not_the_data(source, input)) refuse(*why);
    const struct stat &read = source.status();
    struct stat now {};
    if (::fstat(source.fd(), &now) != 0 || now.st_size != read.st_size || !same_time(now.st_mtim, read.st_mtim) ||
        !same_time(now.st_ctim, read.st_ctim)) {
        refuse("it changed while it was read");
    }
    ClaimedInput claimed(input, name, cleanups);
    if (!claimed.holds(read)) refuse("the name no longer leads to the file that was read");
    sink.commit(); // a failure here gives the input its name back (~ClaimedInput)
    claimed.remove();
}

} // namespace aesgpu
