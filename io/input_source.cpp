#include "io/input_source.hpp"

#include "io/errors.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace aesgpu {

namespace {
constexpr int kPreferredPipeBytes = 1 << 20;

std::string quoted(const std::string &path) {
    return "'" + path + "'";
}
} // namespace

void enlarge_pipe_buffer(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
        // Fails harmlessly when the limit (/proc/sys/fs/pipe-max-size) is lower.
        (void)::fcntl(fd, F_SETPIPE_SZ, kPreferredPipeBytes);
    }
}

bool same_file(const struct stat &a, const struct stat &b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

InputSource::InputSource(UniqueFd owned, int fd, std::string display_name, bool is_stdin)
    : owned_fd_(std::move(owned)), fd_(fd), display_name_(std::move(display_name)), is_stdin_(is_stdin) {
    if (::fstat(fd_, &status_) != 0) throw IoError(errno_message("cannot stat", display_name_, errno));
    if (S_ISDIR(status_.st_mode)) throw IoError(display_name_ + " is a directory");
}

InputSource InputSource::open(const std::string &path) {
    if (path == "-") return standard_input();
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) throw IoError(errno_message("cannot open", quoted(path), errno));
    const int raw = fd.get();
    InputSource source(std::move(fd), raw, quoted(path), false);
    if (S_ISREG(source.status_.st_mode)) {
        (void)::posix_fadvise(raw, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    enlarge_pipe_buffer(raw);
    return source;
}

InputSource InputSource::standard_input() {
    InputSource source(UniqueFd{}, STDIN_FILENO, "standard input", true);
    enlarge_pipe_buffer(STDIN_FILENO);
    return source;
}

std::size_t InputSource::read_full(std::span<std::byte> buffer) {
    std::size_t filled = 0;
    while (filled < buffer.size()) {
        const ssize_t got = ::read(fd_, buffer.data() + filled, buffer.size() - filled);
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            throw IoError(errno_message("error reading", display_name_, errno));
        }
        filled += static_cast<std::size_t>(got);
    }
    return filled;
}

std::optional<std::uint64_t> InputSource::size() const {
    if (S_ISREG(status_.st_mode)) return static_cast<std::uint64_t>(status_.st_size);
    return std::nullopt;
}

} // namespace aesgpu
