// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where the bytes go: the one interface for every kind of output. A regular-file target is a
// new file, written aside and put in place only by commit() (io/new_file_output.hpp); standard
// output, a caller's descriptor, a FIFO, a terminal or a device are written as the data comes and
// cannot be withdrawn (io/stream_output.hpp); discard() keeps nothing. How the bytes reach a file
// (write(), mapped, written behind or directly) is io/output_writer.hpp's.
#include "common/note_sink.hpp"
#include "io/direct_requests.hpp"
#include "io/new_file_output.hpp"
#include "io/output_policy.hpp"
#include "io/output_writer.hpp"
#include "io/stream_output.hpp"

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>

namespace aesgpu {

class OutputSink {
public:
    // Throws IoError when standard output is closed or is the input file.
    static OutputSink standard_output(const struct stat *input_status = nullptr);
    // A descriptor the caller opened for writing (never closed here), written as the data comes,
    // as standard output is; `name` in messages.
    static OutputSink descriptor(int fd, std::string name, const struct stat *input_status = nullptr);
    // Follows symbolic links to the file they name. Throws IoError when the target exists and may
    // not be replaced (before any work is done), or cannot be created.
    static OutputSink create(const std::string &path, const OutputPolicy &policy);
    // Takes the bytes and keeps none (`decrypt -t`: every check runs, nothing is written).
    static OutputSink discard();

    OutputSink(OutputSink &&other) noexcept;
    OutputSink &operator=(OutputSink &&) = delete;
    OutputSink(const OutputSink &) = delete;
    OutputSink &operator=(const OutputSink &) = delete;
    // Discards the temporary file unless commit() succeeded.
    ~OutputSink();

    // Writes everything or throws IoError (BrokenPipe when a pipe lost its reader); short writes
    // and EINTR are absorbed. With io_threads > 1, large writes to a file on a file system that
    // reserves space go through a MappedFileWriter.
    void write_all(std::span<const std::byte> bytes);
    // The same for `parts`, one after another, as if they were one buffer.
    void write_gathered(std::span<const std::span<const std::byte>> parts);
    // write_all() for `bytes` with `room_before` bytes in front of them that the sink may
    // overwrite. Writing directly, an output's unaligned end (a header, a chunk that is not whole
    // alignment units) is held back rather than written through the page cache, and goes into that
    // room in front of the next bytes, which then start aligned and go to the disk directly.
    // What is still held back at the end is written at commit().
    void write_with_room(std::span<std::byte> bytes, std::size_t room_before);
    // The total the output should reach (0: unknown), so the space is reserved in one step.
    void expect_size(std::uint64_t bytes);
    // Under a memory limit (a control group's): the page cache that writes to a file fill is
    // charged to the group, and a dirty page cannot be given back before it reaches the disk. From
    // now on, writes to a regular file are sent to the disk every `window_bytes` and the window
    // before, once written, leaves the cache, so about two windows stay in memory; no mapped writes.
    void write_behind(std::uint64_t window_bytes);
    // From now on writes go past the page cache (O_DIRECT, several requests in flight through
    // `engine`) wherever buffer, offset and length are aligned as the file system needs; the rest
    // (a header, the odd tail) is written as before. No mapped writes and no write-behind then, and commit()
    // makes the file durable (it costs little once the data went straight to the disk). Returns
    // why not where it cannot (standard output, a device, a file system that will not write
    // directly); nothing is changed then.
    [[nodiscard]] std::optional<std::string> write_directly(DirectEngine engine = DirectEngine::automatic);
    [[nodiscard]] std::optional<std::string> write_directly(const DirectQueueMaker &make_queue);
    // How direct writes are kept in flight ("io_uring", "threads"); null before write_directly().
    [[nodiscard]] const DirectQueue *direct_queue() const { return writer_.direct_queue(); }
    [[nodiscard]] bool writes_directly() const { return writer_.writes_directly(); }
    // Where the threads that split writes say that they went on with fewer (none: nobody hears).
    void send_notes_to(NoteSink *notes);
    // Where the file system refused a direct write partway (EINVAL), after which the rest went
    // through the page cache; none where it did not.
    [[nodiscard]] std::optional<std::uint64_t> direct_writes_refused_at() const {
        return writer_.direct_writes_refused_at();
    }
    // The bytes taken so far: where the next write lands in the output.
    [[nodiscard]] std::uint64_t position() const { return writer_.position(); }
    // Flushes, sets the final mode, owner and times, and puts a file in place. Throws IoError.
    void commit();
    // commit() then also waits until the file and its name are on disk (fsync of the file before
    // it is linked in, and of its directory after; a file or device written directly is flushed):
    // for --sync, and for --rm, which deletes the only other copy.
    void make_durable() { durable_ = true; }

    [[nodiscard]] const std::string &display_name() const;
    [[nodiscard]] bool is_terminal() const;
    // True when `other_fd` writes into the same file or pipe as this output (2>&1 with -c), so
    // whatever is written there would end up inside the data. Terminals and devices do not count.
    [[nodiscard]] bool shares_file_with(int other_fd) const;
    // True when nothing reaches the destination before commit(): a failed run can still be
    // withdrawn. False for standard output, FIFOs, terminals and devices.
    [[nodiscard]] bool withdrawable() const { return !std::holds_alternative<StreamOutput>(target_); }
    // True for discard(): nothing is written anywhere.
    [[nodiscard]] bool keeps_nothing() const { return std::holds_alternative<Discarded>(target_); }

private:
    // Takes the bytes and keeps none.
    struct Discarded {
        [[nodiscard]] static int fd() { return -1; }
        [[nodiscard]] const std::string &display_name() const { return name; }
        std::string name = "nothing (test only)";
    };
    using Target = std::variant<Discarded, StreamOutput, NewFileOutput>;

    OutputSink(Target target, unsigned io_threads);

    Target target_;
    OutputWriter writer_; // writes to target_'s descriptor
    bool durable_ = false;
};

} // namespace aesgpu
