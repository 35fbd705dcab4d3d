#pragma once
// Where the bytes go. A regular-file target is written to a temporary file beside it and renamed
// into place only by commit(), so a failed or interrupted run never leaves a partial or clobbered
// file behind. Other targets (standard output, a FIFO, a device) are written directly.
#include "io/mapped_file_writer.hpp"
#include "io/unique_fd.hpp"

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace aesgpu {

struct OutputPolicy {
    bool overwrite = false;                    // replace an existing regular file (-f)
    const struct stat *input_status = nullptr; // refuse to write over the input, even with -f
    unsigned io_threads = 1;                   // > 1: large writes to a file may be split (mapped)
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

    // Writes everything or throws IoError (short writes and EINTR absorbed). With io_threads > 1,
    // large writes to a file on a file system that reserves space go through a MappedFileWriter.
    void write_all(std::span<const std::byte> bytes);
    // The total the output should reach (0: unknown), so the space is reserved in one step.
    void expect_size(std::uint64_t bytes) { expected_size_ = bytes; }
    // Flushes, closes and (for a regular-file target) renames into place. Throws IoError.
    void commit();

    [[nodiscard]] const std::string &display_name() const { return display_name_; }
    [[nodiscard]] bool is_terminal() const;

private:
    OutputSink(UniqueFd owned, int fd, std::string display_name);
    void write_sequential(std::span<const std::byte> bytes);

    UniqueFd owned_fd_; // empty for standard output, which we never close
    int fd_;
    std::string display_name_;
    std::string final_path_;     // set when writing through a temporary file
    std::string temporary_path_; // removed by the destructor unless committed
    mode_t final_mode_ = 0600;   // given at commit: 0666 & ~umask, or the replaced file's mode
    bool overwrite_ = false;
    std::uint64_t bytes_written_ = 0;
    std::uint64_t expected_size_ = 0;
    unsigned io_threads_ = 1;
    bool may_map_ = false; // a temporary file not yet found unfit for mapping
    std::optional<MappedFileWriter> mapped_;
};

} // namespace aesgpu
