#include "io/output_sink.hpp"

#include "io/errors.hpp"
#include "io/input_source.hpp"
#include "io/interrupt_cleanup.hpp"

#include <fcntl.h>
#include <stdio.h> // renameat2
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <utility>
#include <vector>

namespace aesgpu {

namespace {

std::string quoted(const std::string &path) {
    return "'" + path + "'";
}

mode_t default_file_mode() {
    // The mode a plain `> file` would give: 0666 less the umask. Read once, single-threaded.
    static const mode_t mode = [] {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        return static_cast<mode_t>(0666 & ~mask);
    }();
    return mode;
}

void refuse_same_file(const struct stat &target, const OutputPolicy &policy, const std::string &name) {
    if (policy.input_status && same_file(target, *policy.input_status)) {
        throw IoError("refusing to write " + name + ": it is the input file");
    }
}

// Moves the finished temporary file onto the target; without overwrite, never replaces a file
// that appeared while we were writing.
void rename_into_place(const std::string &from, const std::string &to, bool overwrite) {
    if (!overwrite) {
        if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return;
        if (errno == EEXIST) throw IoError(quoted(to) + " already exists; use -f to overwrite it");
        if (errno != EINVAL && errno != ENOSYS)
            throw IoError(errno_message("cannot rename output to", quoted(to), errno));
        // The file system cannot promise "no replace"; fall back to check-then-rename.
        struct stat st {};
        if (::lstat(to.c_str(), &st) == 0) throw IoError(quoted(to) + " already exists; use -f to overwrite it");
    }
    if (::rename(from.c_str(), to.c_str()) != 0) {
        throw IoError(errno_message("cannot rename output to", quoted(to), errno));
    }
}

} // namespace

OutputSink::OutputSink(UniqueFd owned, int fd, std::string display_name)
    : owned_fd_(std::move(owned)), fd_(fd), display_name_(std::move(display_name)) {}

OutputSink::OutputSink(OutputSink &&other) noexcept
    : owned_fd_(std::move(other.owned_fd_)), fd_(std::exchange(other.fd_, -1)),
      display_name_(std::move(other.display_name_)), final_path_(std::move(other.final_path_)),
      temporary_path_(std::exchange(other.temporary_path_, {})), final_mode_(other.final_mode_),
      overwrite_(other.overwrite_), bytes_written_(other.bytes_written_), expected_size_(other.expected_size_),
      io_threads_(other.io_threads_), may_map_(other.may_map_), mapped_(std::move(other.mapped_)) {
    other.mapped_.reset();
}

OutputSink::~OutputSink() {
    mapped_.reset();
    if (!temporary_path_.empty()) {
        owned_fd_.reset();
        ::unlink(temporary_path_.c_str());
        disarm_temporary_file();
    }
}

OutputSink OutputSink::standard_output(const struct stat *input_status) {
    struct stat st {};
    if (::fstat(STDOUT_FILENO, &st) != 0) throw IoError(errno_message("cannot use", "standard output", errno));
    // `aesgpu encrypt f -c >> f` would read its own output forever.
    if (S_ISREG(st.st_mode) && input_status && same_file(st, *input_status)) {
        throw IoError("refusing to write standard output: it is the input file");
    }
    enlarge_pipe_buffer(STDOUT_FILENO);
    return OutputSink(UniqueFd{}, STDOUT_FILENO, "standard output");
}

OutputSink OutputSink::create(const std::string &path, const OutputPolicy &policy) {
    if (path == "-") return standard_output(policy.input_status);
    const std::string name = quoted(path);

    std::string final_path = path;
    mode_t final_mode = default_file_mode();
    struct stat existing {};
    if (::stat(path.c_str(), &existing) == 0) {
        refuse_same_file(existing, policy, name);
        if (S_ISDIR(existing.st_mode)) throw IoError("cannot write " + name + ": it is a directory");
        if (S_ISBLK(existing.st_mode) && !policy.overwrite) {
            throw IoError("refusing to write to block device " + name + " without -f");
        }
        if (!S_ISREG(existing.st_mode)) {
            // A FIFO or a device: nothing to replace atomically, so write straight into it.
            UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
            if (!fd.valid()) throw IoError(errno_message("cannot open", name, errno));
            enlarge_pipe_buffer(fd.get());
            const int raw = fd.get();
            return OutputSink(std::move(fd), raw, name);
        }
        if (!policy.overwrite) throw IoError(name + " already exists; use -f to overwrite it");
        // -f replaces the contents the way `> file` would: through a symbolic link, keeping the mode.
        final_path = std::filesystem::canonical(path).string();
        final_mode = existing.st_mode & 07777;
    } else if (errno != ENOENT) {
        throw IoError(errno_message("cannot use", name, errno));
    }

    const std::filesystem::path target(final_path);
    const std::filesystem::path directory = target.has_parent_path() ? target.parent_path() : ".";
    // A hidden name beside the target, so the final rename stays within one file system; cut so
    // that it stays within NAME_MAX however long the target's name is.
    std::string hidden_name(".");
    hidden_name.append(target.filename().string().substr(0, 200)).append(".aesgpu-XXXXXX");
    const std::string pattern = (directory / hidden_name).string();
    std::vector<char> writable(pattern.begin(), pattern.end());
    writable.push_back('\0');
    // mkostemp creates the file 0600: partial output is private until commit() sets final_mode.
    UniqueFd fd(::mkostemp(writable.data(), O_CLOEXEC));
    if (!fd.valid())
        throw IoError(errno_message("cannot create a temporary file in", quoted(directory.string()), errno));
    const int raw = fd.get();
    OutputSink sink(std::move(fd), raw, name);
    sink.temporary_path_ = writable.data();
    arm_temporary_file(sink.temporary_path_);
    sink.final_path_ = final_path;
    sink.final_mode_ = final_mode;
    sink.overwrite_ = policy.overwrite;
    sink.io_threads_ = policy.io_threads;
    sink.may_map_ = policy.io_threads > 1;
    return sink;
}

void OutputSink::write_all(std::span<const std::byte> bytes) {
    if (may_map_ && !mapped_ && bytes.size() >= 2 * WorkerPool::kMinPieceBytes) {
        if (auto writer = MappedFileWriter::start(fd_, display_name_, bytes_written_, expected_size_, io_threads_)) {
            mapped_.emplace(std::move(*writer));
        } else {
            may_map_ = false;
        }
    }
    if (mapped_) {
        mapped_->append(bytes);
    } else {
        write_sequential(bytes);
    }
    bytes_written_ += bytes.size();
}

void OutputSink::write_sequential(std::span<const std::byte> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t wrote = ::write(fd_, bytes.data() + done, bytes.size() - done);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            throw IoError(errno_message("error writing", display_name_, errno));
        }
        done += static_cast<std::size_t>(wrote);
    }
}

void OutputSink::commit() {
    if (mapped_) mapped_->finish();
    if (!temporary_path_.empty() && ::fchmod(owned_fd_.get(), final_mode_) != 0) {
        throw IoError(errno_message("cannot set permissions of", display_name_, errno));
    }
    if (owned_fd_.valid() && owned_fd_.close() != 0) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
    if (!temporary_path_.empty()) {
        rename_into_place(temporary_path_, final_path_, overwrite_);
        disarm_temporary_file();
        temporary_path_.clear();
    }
}

bool OutputSink::is_terminal() const {
    return ::isatty(fd_) == 1;
}

} // namespace aesgpu
