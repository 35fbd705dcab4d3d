// SPDX-License-Identifier: Apache-2.0
#include "io/output_writer.hpp"

#include "common/errors.hpp"
#include "io/direct_io.hpp"
#include "io/gathered.hpp"
#include "io/io_threads.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>
#include <variant>

namespace aesgpu {

OutputWriter::OutputWriter(int fd, std::string display_name, unsigned io_threads)
    : fd_(fd), display_name_(std::move(display_name)), map_threads_(io_threads > 1 ? io_threads : 0) {}

void OutputWriter::write(std::span<const std::span<const std::byte>> parts) {
    const Gathered<const std::byte> bytes(parts);
    if (fd_ < 0) {
        written_ += bytes.size();
        return;
    }
    if (writes_directly()) {
        write_parts_directly(parts);
        return;
    }
    if (map_threads_ && !mapped_ && bytes.size() >= 2 * kFileCopyPieces.min_piece_bytes) {
        if (auto writer = MappedFileWriter::start(fd_, display_name_, written_, expected_size_, map_threads_, notes_)) {
            mapped_.emplace(std::move(*writer));
        } else {
            map_threads_ = 0;
        }
    }
    if (mapped_) {
        mapped_->append(bytes);
    } else {
        for (const std::span<const std::byte> part : parts) write_sequential(part);
    }
    written_ += bytes.size();
    if (behind_) behind_->push();
}

// Part by part, each after what the one before held back: these bytes bring no room for it. Once
// the file system refused a direct write, the parts left go through the page cache.
void OutputWriter::write_parts_directly(std::span<const std::span<const std::byte>> parts) {
    for (const std::span<const std::byte> part : parts) {
        if (!direct_->active()) {
            write_sequential(part);
            written_ += part.size();
            continue;
        }
        direct_->write_held_back(written_);
        const std::uint64_t at = written_;
        written_ += part.size(); // first, as for every write: the position counts what was taken
        direct_->write(part, at);
    }
}

void OutputWriter::write_with_room(std::span<std::byte> bytes, std::size_t room_before) {
    if (direct_ && direct_->fits_held_back(bytes, room_before, written_)) {
        const std::uint64_t end = written_;
        written_ += bytes.size(); // first, as for every write: the position counts what was taken
        direct_->write_with_held_back(bytes, end);
        return;
    }
    const std::span<const std::byte> whole = bytes;
    write(std::span(&whole, 1));
}

void OutputWriter::write_sequential(std::span<const std::byte> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t wrote = ::write(fd_, bytes.data() + done, bytes.size() - done);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            if (errno == EPIPE) throw BrokenPipe(errno_message("error writing", display_name_, errno));
            throw IoError(errno_message("error writing", display_name_, errno));
        }
        done += static_cast<std::size_t>(wrote);
    }
}

void OutputWriter::expect_size(std::uint64_t bytes) {
    expected_size_ = bytes;
    if (writes_directly()) direct_->reserve(expected_size_);
}

void OutputWriter::write_behind(std::uint64_t window_bytes) {
    struct stat st {};
    if (fd_ < 0 || mapped_ || writes_directly() || ::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
        return; // direct writes leave nothing in the page cache to push
    }
    behind_.emplace(fd_, display_name_, window_bytes);
    map_threads_ = 0; // a mapping dirties a whole window of its own
}

std::optional<std::string> OutputWriter::write_directly(const DirectQueueMaker &make_queue) {
    if (mapped_ || written_ % kFallbackDirectAlignment != 0) return "writing has begun";
    std::variant<DirectFileWriter, std::string> started =
        DirectFileWriter::start(fd_, display_name_, make_queue, notes_);
    if (std::string *refusal = std::get_if<std::string>(&started)) return std::move(*refusal);
    direct_.emplace(std::move(std::get<DirectFileWriter>(started)));
    map_threads_ = 0;
    behind_.reset();
    direct_->reserve(expected_size_);
    return std::nullopt;
}

void OutputWriter::send_notes_to(NoteSink *notes) {
    notes_ = notes;
    if (direct_) direct_->send_notes_to(notes);
}

void OutputWriter::finish() {
    if (mapped_) mapped_->finish();
    if (direct_) direct_->write_held_back(written_);
}

void OutputWriter::release_unwritten_reservation() {
    if (direct_) direct_->release_unwritten_reservation(written_);
}

} // namespace aesgpu
