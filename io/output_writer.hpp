// SPDX-License-Identifier: Apache-2.0
#pragma once
// How an output's bytes reach its descriptor, in order: write() as they come; for a regular file,
// one of the ways only a file allows, chosen on the way: mapped writes split among threads
// (MappedFileWriter), writing behind under a memory limit (WriteBehind), or direct writes past
// the page cache (DirectFileWriter).
#include "common/note_sink.hpp"
#include "io/direct_file_writer.hpp"
#include "io/direct_requests.hpp"
#include "io/mapped_file_writer.hpp"
#include "io/write_behind.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace aesgpu {

class OutputWriter {
public:
    // Writes to `fd` (never closed here; -1: takes the bytes and keeps none); `display_name` in
    // messages. `io_threads` > 1: large writes to a file on a file system that reserves space are
    // mapped and copied by that many threads.
    OutputWriter(int fd, std::string display_name, unsigned io_threads);

    // OutputSink's functions of the same names (output_sink.hpp says what they do).
    void write(std::span<const std::span<const std::byte>> parts);
    void write_with_room(std::span<std::byte> bytes, std::size_t room_before);
    void expect_size(std::uint64_t bytes);
    void write_behind(std::uint64_t window_bytes);
    // Also "writing has begun" where direct writes can no longer start.
    [[nodiscard]] std::optional<std::string> write_directly(const DirectQueueMaker &make_queue);
    [[nodiscard]] const DirectQueue *direct_queue() const { return direct_ ? &direct_->queue() : nullptr; }
    [[nodiscard]] bool writes_directly() const { return direct_ && direct_->active(); }
    void send_notes_to(NoteSink *notes);
    [[nodiscard]] std::optional<std::uint64_t> direct_writes_refused_at() const {
        return direct_ ? direct_->refused_at() : std::nullopt;
    }
    [[nodiscard]] std::uint64_t position() const { return written_; }
    [[nodiscard]] int fd() const { return fd_; }

    // Before the output is put in place: a mapping is undone (the file cut to the bytes written)
    // and what direct writes held back is written. Throws IoError.
    void finish();
    // Frees the space reserved for direct writes past the bytes written. Throws IoError.
    void release_unwritten_reservation();

private:
    void write_sequential(std::span<const std::byte> bytes);
    void write_parts_directly(std::span<const std::span<const std::byte>> parts);

    int fd_;
    std::string display_name_;
    std::uint64_t written_ = 0;
    std::uint64_t expected_size_ = 0;
    unsigned map_threads_; // 0: no mapped writes (any more)
    NoteSink *notes_ = nullptr;
    std::optional<MappedFileWriter> mapped_;
    std::optional<WriteBehind> behind_;
    std::optional<DirectFileWriter> direct_; // kept once refused, for what it tells
};

} // namespace aesgpu
