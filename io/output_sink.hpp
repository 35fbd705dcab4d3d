// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where the bytes go. A regular-file target is written to an unnamed temporary file (O_TMPFILE)
// in the target's directory and linked into place only by commit(), so a failed, interrupted or
// even killed run leaves no partial file and never clobbers an existing one. (Replacing with -f
// links a hidden name and renames it over the target: SIGKILL in that instant leaves the hidden
// name.) Where the file system has no O_TMPFILE, a hidden named file (0600 until commit) stands
// in, removed on failure and by the interrupt clean-up, not after SIGKILL. Everything happens
// relative to the target's directory, opened once, so an output whose directory is renamed
// mid-run still lands in it. Other targets (standard output, a FIFO, a terminal, a device) are
// written directly and cannot be withdrawn.
#include "common/interrupt_cleanup.hpp"
#include "common/unique_fd.hpp"
#include "common/worker_pool.hpp"
#include "io/direct_requests.hpp"
#include "io/mapped_file_writer.hpp"

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace aesgpu {

struct OutputPolicy {
    bool overwrite = false; // replace an existing regular file (-f)
    // The input, when there is one: refused as the output even with overwrite; when it is a regular
    // file, a new output gets its permission bits, group and times, as gzip does (without the
    // group's bits where the process may not set the group).
    const struct stat *input_status = nullptr;
    unsigned io_threads = 1; // > 1: large writes to a file may be split (mapped)
    // false: a hidden named file even where O_TMPFILE works (tests of that fallback use it).
    bool unnamed_temporary = true;
    // Where a named temporary file registers its removal, for a program that ends itself on a
    // signal (none: a process killed mid-run may leave it where the kernel gives no O_TMPFILE).
    // Must outlive the sink.
    CleanupRegistry *interrupt_cleanups = nullptr;
};

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
    [[nodiscard]] const DirectQueue *direct_queue() const { return direct_queue_.queue ? &direct_queue_ : nullptr; }
    [[nodiscard]] bool writes_directly() const { return direct_fd_.valid(); }
    // Where the threads that split writes say that they went on with fewer (none: nobody hears).
    void send_notes_to(NoteSink *notes);
    // Where the file system refused a direct write partway (EINVAL), after which the rest went
    // through the page cache; none where it did not.
    [[nodiscard]] std::optional<std::uint64_t> direct_writes_refused_at() const { return direct_refused_at_; }
    // The bytes taken so far: where the next write lands in the output.
    [[nodiscard]] std::uint64_t position() const { return bytes_written_; }
    // Flushes, sets the final mode, owner and times, and puts a file in place. Throws IoError.
    void commit();
    // commit() then also waits until the file and its name are on disk (fsync of the file before
    // it is linked in, and of its directory after; a file or device written directly is flushed):
    // for --sync, and for --rm, which deletes the only other copy.
    void make_durable() { durable_ = true; }

    [[nodiscard]] const std::string &display_name() const { return display_name_; }
    [[nodiscard]] bool is_terminal() const;
    // True when `other_fd` writes into the same file or pipe as this output (2>&1 with -c), so
    // whatever is written there would end up inside the data. Terminals and devices do not count.
    [[nodiscard]] bool shares_file_with(int other_fd) const;
    // True when nothing reaches the destination before commit(): a failed run can still be
    // withdrawn. False for standard output, FIFOs, terminals and devices.
    [[nodiscard]] bool withdrawable() const { return kind_ != Kind::direct; }

private:
    enum class Kind { direct, unnamed_temporary, named_temporary, discard };
    // What commit() gives the file: the replaced file's owner and group, or the input's group
    // (where the process may), a mode, the input's times.
    struct Attributes {
        std::optional<mode_t> mode;
        std::optional<uid_t> owner;
        std::optional<gid_t> group;
        std::optional<struct stat> times_from;
    };

    OutputSink(Kind kind, UniqueFd owned, int fd, std::string display_name);
    void write_sequential(std::span<const std::byte> bytes);
    void write_direct(std::span<const std::byte> bytes, std::uint64_t at);
    void write_held_back();
    void write_buffered_at(std::span<const std::byte> bytes, std::uint64_t at);
    void reserve_direct_space();
    void release_unwritten_reservation();
    void push_behind();
    void apply_attributes();
    void link_into_place();
    void rename_into_place();
    void sync_directory();

    Kind kind_;
    UniqueFd owned_fd_; // empty for standard output, which we never close
    int fd_;
    std::string display_name_;
    UniqueFd directory_;         // the target's directory (temporary kinds)
    std::string target_name_;    // the target's name in directory_
    std::string temporary_name_; // the named temporary file's name in directory_
    CleanupRegistry *interrupt_cleanups_ = nullptr;
    InterruptCleanup cleanup_; // removes the named temporary file on a signal
    Attributes attributes_;
    bool overwrite_ = false;
    bool committed_ = false;
    bool durable_ = false;
    std::uint64_t bytes_written_ = 0;
    std::uint64_t expected_size_ = 0;
    std::uint64_t reserved_bytes_ = 0; // allocated past what is written (direct writes), till commit
    unsigned io_threads_ = 1;
    bool may_map_ = false; // a temporary file not yet found unfit for mapping
    std::optional<MappedFileWriter> mapped_;
    UniqueFd direct_fd_; // the output opened again with O_DIRECT, once write_directly()
    std::size_t direct_alignment_ = 0;
    DirectQueue direct_queue_; // made by write_directly()
    NoteSink *notes_ = nullptr;
    // Written directly: the output's last bytes, not yet in the file, less than one alignment unit
    // from an aligned offset up to bytes_written_ (write_with_room).
    std::vector<std::byte> held_back_;
    std::optional<std::uint64_t> direct_refused_at_;
    struct WriteBehind {
        off_t window = 0;  // 0: off
        off_t sent = 0;    // file offset up to which writes were sent to the disk
        off_t dropped = 0; // up to which they left the page cache
        // On overlayfs (a container's root) sync_file_range reaches the overlay's own empty page
        // cache, not the file's, and does nothing: fdatasync, which the overlay passes on, instead.
        bool whole_file_sync = false;
    } behind_;
};

} // namespace aesgpu
