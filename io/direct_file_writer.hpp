// SPDX-License-Identifier: Apache-2.0
#pragma once
// Writes to a regular file past the page cache: through a second descriptor with O_DIRECT, several
// requests in flight through a DirectRequestQueue, wherever buffer, offset and length are aligned
// as the file system needs; the rest (a header, the odd tail) goes through the page cache by the
// file's own descriptor. An output's unaligned end is held back rather than written through the
// page cache, and goes into the room the caller leaves in front of the next bytes, which then
// start aligned and go to the disk directly.
#include "common/note_sink.hpp"
#include "common/unique_fd.hpp"
#include "io/direct_io.hpp"
#include "io/direct_requests.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace aesgpu {

class DirectFileWriter {
public:
    // A writer for `fd` (a regular file opened read-write, never closed here; `display_name` in
    // messages), its queue made by `make_queue` and telling `notes`; or why it cannot be: the file
    // system refuses direct writes, or only io_uring was asked for and it cannot be had. Throws
    // IoError where the file's mode, widened meanwhile, cannot be set back.
    static std::variant<DirectFileWriter, std::string> start(int fd, std::string display_name,
                                                             const DirectQueueMaker &make_queue, NoteSink *notes);

    // False once the file system refused a direct write partway: everything goes through the
    // page cache from then on.
    [[nodiscard]] bool active() const { return direct_fd_.valid(); }
    [[nodiscard]] const DirectQueue &queue() const { return queue_; }
    void send_notes_to(NoteSink *notes) { queue_.queue->send_notes_to(notes); }
    // Where the file system refused a direct write partway (EINVAL); none where it did not.
    [[nodiscard]] std::optional<std::uint64_t> refused_at() const { return refused_at_; }

    // Writes `bytes` at file offset `at`, the output's end, and leaves the file's offset after them.
    // Throws IoError.
    void write(std::span<const std::byte> bytes, std::uint64_t at);
    // True when the `room_before` bytes in front of `bytes`, which the output ends before (`end`),
    // can take what is held back so that both go out aligned.
    [[nodiscard]] bool fits_held_back(std::span<std::byte> bytes, std::size_t room_before, std::uint64_t end) const;
    // Once fits_held_back(): puts what is held back in front of `bytes` and writes both at its place.
    void write_with_held_back(std::span<std::byte> bytes, std::uint64_t end);
    // What is held back goes through the page cache, at its place before `end`, the output's end.
    void write_held_back(std::uint64_t end);

    // Space for the whole output in one step (`bytes` of it; 0: unknown, nothing reserved). Throws
    // IoError where the file system has no room.
    void reserve(std::uint64_t bytes);
    // Frees what was reserved past `written`, the output's length. Throws IoError.
    void release_unwritten_reservation(std::uint64_t written);

private:
    DirectFileWriter(int fd, std::string display_name, DirectFile direct, DirectQueue queue);
    void write_buffered_at(std::span<const std::byte> bytes, std::uint64_t at);

    int fd_;
    std::string display_name_;
    UniqueFd direct_fd_; // the file opened again with O_DIRECT; closed once refused
    std::size_t alignment_;
    DirectQueue queue_;
    // The output's last bytes, not yet in the file, less than one alignment unit from an aligned
    // offset up to the output's end.
    std::vector<std::byte> held_back_;
    std::optional<std::uint64_t> refused_at_;
    std::uint64_t reserved_bytes_ = 0; // allocated past what is written, till the output is placed
};

} // namespace aesgpu
