// SPDX-License-Identifier: Apache-2.0
#pragma once
// An output written as the data comes: standard output, a descriptor the caller opened, or a FIFO,
// a terminal or a device named as the output. Nothing can be replaced atomically there, so what
// is written reaches it at once and cannot be withdrawn.
#include "common/unique_fd.hpp"

#include <sys/stat.h>

#include <string>

namespace aesgpu {

class StreamOutput {
public:
    // A descriptor the caller opened for writing (never closed here); `name` in messages. Throws
    // IoError when it is closed (or open for reading only), or is `input_status`'s regular file.
    static StreamOutput descriptor(int fd, std::string name, const struct stat *input_status);
    // Opens `path`, a FIFO, a terminal or a device, for writing; `name` in messages. Throws IoError.
    static StreamOutput open(const std::string &path, std::string name);

    [[nodiscard]] int fd() const { return fd_; }
    [[nodiscard]] const std::string &display_name() const { return display_name_; }
    // `durable`: flushed to the file or device behind it, where it can be. Closes what open()
    // opened. Throws IoError.
    void finish(bool durable);

private:
    StreamOutput(UniqueFd owned, int fd, std::string display_name);

    UniqueFd owned_; // empty for a caller's descriptor, which we never close
    int fd_;
    std::string display_name_;
};

} // namespace aesgpu
