#pragma once
// Where the bytes go. A regular-file target is written to a temporary file beside it and renamed
// into place only by commit(), so a failed or interrupted run never leaves a partial or clobbered
// file behind. Other targets (standard output, a FIFO, a device) are written directly.
#include "io/unique_fd.hpp"

#include <sys/stat.h>

#include <cstddef>
#include <span>
#include <string>

namespace aesgpu {

struct OutputPolicy {
    bool overwrite = false;                    // replace an existing regular file (-f)
    const struct stat *input_status = nullptr; // refuse to write over the input, even with -f
};

class OutputSink {
public:
    static OutputSink standard_output(const struct stat *input_status = nullptr);
    // Throws IoError when the target exists and may not be replaced, or cannot be created.
    static OutputSink create(const std::string &path, const OutputPolicy &policy);

    OutputSink(OutputSink &&other) noexcept;
    OutputSink &operator=(OutputSink &&) = delete;
    OutputSink(const OutputSink &) = delete;
    OutputSink &operator=(const OutputSink &) = delete;
    // Removes the temporary file unless commit() succeeded.
    ~OutputSink();

    // Writes everything or throws IoError (short writes and EINTR absorbed).
    void write_all(std::span<const std::byte> bytes);
    // Flushes, closes and (for a regular-file target) renames into place. Throws IoError.
    void commit();

    [[nodiscard]] const std::string &display_name() const { return display_name_; }
    [[nodiscard]] bool is_terminal() const;

private:
    OutputSink(UniqueFd owned, int fd, std::string display_name);

    UniqueFd owned_fd_; // empty for standard output, which we never close
    int fd_;
    std::string display_name_;
    std::string final_path_;     // set when writing through a temporary file
    std::string temporary_path_; // removed by the destructor unless committed
    mode_t final_mode_ = 0600;   // given at commit: 0666 & ~umask, or the replaced file's mode
    bool overwrite_ = false;
};

} // namespace aesgpu
