// SPDX-License-Identifier: Apache-2.0
#include "io/stream_output.hpp"

#include "common/errors.hpp"
#include "io/input_source.hpp" // same_file, enlarge_pipe_buffer
#include "io/output_path.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace aesgpu {

StreamOutput::StreamOutput(UniqueFd owned, int fd, std::string display_name)
    : owned_(std::move(owned)), fd_(fd), display_name_(std::move(display_name)) {}

StreamOutput StreamOutput::descriptor(int fd, std::string name, const struct stat *input_status) {
    const int flags = ::fcntl(fd, F_GETFL);
    // main() puts an O_PATH descriptor, good for nothing, where standard output was closed.
    if (flags < 0 || (flags & O_PATH) != 0 || (flags & O_ACCMODE) == O_RDONLY) {
        throw IoError("cannot write to " + name + ": it is closed (or open for reading only)");
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw IoError(errno_message("cannot use", name, errno));
    // `aesgpu encrypt f -c >> f` would read its own output forever.
    if (S_ISREG(st.st_mode) && input_status && same_file(st, *input_status)) {
        throw IoError("refusing to write " + name + ": it is the input file");
    }
    enlarge_pipe_buffer(fd);
    return StreamOutput(UniqueFd{}, fd, std::move(name));
}

StreamOutput StreamOutput::open(const std::string &path, std::string name) {
    // A link put there since it was looked at is not followed (but a system stream's).
    const int no_follow = names_a_system_stream(path) ? 0 : O_NOFOLLOW;
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | no_follow));
    if (!fd.valid()) throw IoError(errno_message("cannot open", name, errno));
    enlarge_pipe_buffer(fd.get());
    const int raw = fd.get();
    return StreamOutput(std::move(fd), raw, std::move(name));
}

void StreamOutput::finish(bool durable) {
    // A file or device behind standard output can be flushed; a pipe, socket or terminal
    // cannot (EINVAL), and what reached it is out of our hands already.
    if (durable && ::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
    if (owned_.valid() && owned_.close() != 0) throw IoError(errno_message("error writing", display_name_, errno));
}

} // namespace aesgpu
