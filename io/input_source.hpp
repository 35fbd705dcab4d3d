// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where the bytes come from: a file, or standard input (a pipe, a terminal, a redirected file).
#include "common/unique_fd.hpp"
#include "io/cancellation.hpp"
#include "io/direct_io.hpp"
#include "io/direct_requests.hpp"
#include "io/gathered.hpp"
#include "io/io_threads.hpp"

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace aesgpu {

class InputSource {
public:
    // Opens `path` for reading; "-" means standard input. With io_threads > 1, large reads from a
    // regular file are split across that many threads, kMaxReadThreads at most. Throws IoError,
    // also when standard input is closed.
    static InputSource open(const std::string &path, unsigned io_threads = 1);
    static InputSource standard_input(unsigned io_threads = 1);
    // A file the caller opened for reading (`fd`), named `display_name` in messages.
    static InputSource adopt(UniqueFd fd, std::string display_name);

    // Reads until `buffer` is full or the input ends; returns the bytes read. Short reads from
    // pipes and EINTR are absorbed here. Split reads (pread at offsets) leave the file offset
    // where one read() would. A read that would wait on a pipe or terminal waits on `cancellation`
    // too and throws Cancelled when it fires. Throws IoError.
    std::size_t read_full(std::span<std::byte> buffer, const Cancellation *cancellation = nullptr);
    // read_full() into `buffer` with `room` bytes before and after it that the source may
    // overwrite. Reading directly, a start or end that is not aligned (the stream begins after a
    // header, or a chunk is not whole alignment units) is then read directly too, as part of the
    // aligned range around it, instead of through the page cache.
    std::size_t read_full_with_room(std::span<std::byte> buffer, std::size_t room);
    // The same into `parts` one after another, as if they were one buffer.
    std::size_t read_gathered(std::span<const std::span<std::byte>> parts, const Cancellation *cancellation = nullptr);
    // Up to `buffer.size()` bytes from where reading goes on, without going on: a file or block
    // device is read at its offset (pread); a pipe's bytes are kept, and the reads after give them
    // again first. Returns fewer only where the input ends. Throws IoError.
    std::size_t peek(std::span<std::byte> buffer);
    // The same from `skip` bytes past where reading goes on.
    std::size_t peek(std::span<std::byte> buffer, std::uint64_t skip);
    // How many bytes there are from where reading goes on, counting up to `limit`: fewer only
    // where the input ends. A stream's are read and held as peek() holds them (up to `limit`
    // bytes of memory).
    std::uint64_t look_ahead(std::uint64_t limit);

    // When the input is a regular file, the bytes from where reading started (standard input may
    // be a file a caller read partway) to its end: for progress, logs and the change-of-size check.
    // None for a file whose size is not its length (proc, sysfs, debugfs, tracefs, cgroup,
    // configfs, securityfs: 0 or 4096, the contents made as they are read), read like a pipe.
    [[nodiscard]] std::optional<std::uint64_t> size() const;
    // "'path'" or "standard input", for messages.
    [[nodiscard]] const std::string &display_name() const { return display_name_; }
    [[nodiscard]] const struct stat &status() const { return status_; }
    // Where reading starts in a regular file (0 unless standard input was read partway before).
    [[nodiscard]] off_t start_offset() const { return start_offset_; }
    [[nodiscard]] bool is_terminal() const;
    [[nodiscard]] int fd() const { return fd_; }
    // Under a memory limit (a control group's, where the page cache counts): from now on what
    // has been read of a regular file leaves the page cache behind the reads.
    void drop_behind() { drop_behind_ = sized_ && !direct_fd_.valid(); }
    // From now on reads of a regular file go past the page cache (O_DIRECT, several requests in
    // flight through `engine`) wherever buffer, offset and length are aligned as the file system
    // needs; the rest (a header, an odd tail) is read as before. Returns why not where it cannot
    // (not a regular file, or one the file system will not read directly); nothing is changed then.
    [[nodiscard]] std::optional<std::string> read_directly(DirectEngine engine = DirectEngine::automatic);
    [[nodiscard]] std::optional<std::string> read_directly(const DirectQueueMaker &make_queue);
    [[nodiscard]] bool reads_directly() const { return direct_fd_.valid(); }
    // The file offset reading goes on from (a regular file; 0 where there is none).
    [[nodiscard]] std::uint64_t position() const;
    // How direct reads are kept in flight; null before read_directly().
    [[nodiscard]] const DirectQueue *direct_queue() const { return direct_queue_.queue ? &direct_queue_ : nullptr; }
    // Where the threads that split reads say that they went on with fewer (none: nobody hears).
    void send_notes_to(NoteSink *notes);

private:
    InputSource(UniqueFd owned, int fd, std::string display_name, unsigned io_threads);
    std::size_t fill(std::span<std::byte> buffer, std::optional<off_t> offset, const Cancellation *cancellation);
    std::size_t take_peeked(std::span<std::byte> buffer);
    std::size_t hold(std::size_t bytes);
    std::size_t read_parallel(const Gathered<std::byte> &buffer, off_t start);
    std::size_t read_direct_requests(const Gathered<std::byte> &buffer, off_t start);
    std::optional<std::size_t> read_aligned_around(std::span<std::byte> buffer);
    [[nodiscard]] bool direct_fits(const std::byte *data, off_t offset, std::size_t length) const;

    UniqueFd owned_fd_; // empty for standard input, which we never close
    int fd_;
    std::string display_name_;
    struct stat status_ {};
    off_t start_offset_ = 0; // a regular file's offset when it was opened
    bool sized_ = false;     // a regular file whose st_size is its length
    bool drop_behind_ = false;
    off_t dropped_ = 0; // with drop_behind_: read up to here, and dropped but for a straddling folio
    unsigned io_threads_;
    std::unique_ptr<WorkerPool> readers_; // made on the first split read
    UniqueFd direct_fd_;                  // the same file opened with O_DIRECT, once read_directly()
    std::size_t direct_alignment_ = 0;
    DirectQueue direct_queue_; // made by read_directly()
    NoteSink *notes_ = nullptr;
    std::vector<std::byte> peeked_; // a pipe's bytes that peek() read, from peeked_from_ on not yet taken
    std::size_t peeked_from_ = 0;
};

// True when both describe the same file (same device and inode).
[[nodiscard]] bool same_file(const struct stat &a, const struct stat &b);

// Pipes move 64 KiB per read by default; a bigger pipe buffer lets one read or write move up to
// a MiB, which keeps pipelines from being dominated by context switches. Best effort.
void enlarge_pipe_buffer(int fd);

} // namespace aesgpu
