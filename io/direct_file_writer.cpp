// SPDX-License-Identifier: Apache-2.0
#include "io/direct_file_writer.hpp"

#include "common/errors.hpp"
#include "io/io_threads.hpp" // kFileCopyPieces

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace aesgpu {

namespace {

// Part of a write that a direct request left undone, to go through the page cache.
struct Undone {
    std::size_t offset; // in the bytes written
    std::size_t length;
    bool refused; // EINVAL with nothing of the piece written: no direct writes from now on
};

// Writes `aligned` at file offset `at` on `direct_fd`, cut into as many requests as `queue` keeps
// in flight, and returns what they left undone. Throws IoError for any failure but EINVAL.
std::vector<Undone> write_aligned(DirectRequestQueue &queue, int direct_fd, std::span<const std::byte> aligned,
                                  std::uint64_t at, const std::string &display_name) {
    const std::size_t piece = piece_length(aligned.size(), queue.depth(), kFileCopyPieces);
    std::vector<DirectRequest> requests;
    for (std::size_t offset = 0; offset < aligned.size(); offset += piece) {
        // The queue takes one kind of request for reads and writes; a write only reads its data.
        requests.push_back({const_cast<std::byte *>(aligned.data()) + offset, std::min(piece, aligned.size() - offset),
                            static_cast<off_t>(at + offset)});
    }
    std::vector<DirectResult> results(requests.size());
    queue.run(DirectOp::write, direct_fd, requests, results);
    std::vector<Undone> undone;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const DirectResult &result = results[i];
        if (result.error != 0 && result.error != EINVAL) {
            throw IoError(errno_message("error writing", display_name, result.error));
        }
        const std::size_t offset = static_cast<std::size_t>(requests[i].offset - static_cast<off_t>(at));
        if (result.done < requests[i].length) {
            undone.push_back(
                {offset + result.done, requests[i].length - result.done, result.error == EINVAL && result.done == 0});
        }
    }
    return undone;
}

} // namespace

DirectFileWriter::DirectFileWriter(int fd, std::string display_name, DirectFile direct, DirectQueue queue)
    : fd_(fd), display_name_(std::move(display_name)), direct_fd_(std::move(direct.fd)), alignment_(direct.alignment),
      queue_(std::move(queue)) {}

std::variant<DirectFileWriter, std::string>
DirectFileWriter::start(int fd, std::string display_name, const DirectQueueMaker &make_queue, NoteSink *notes) {
    // The temporary file has the umask's mode until commit() gives it its own: under a umask
    // such as 0277 its owner may not open it for writing again. Only the owner, only meanwhile.
    struct stat status {};
    const bool widened = ::fstat(fd, &status) == 0 && (status.st_mode & S_IWUSR) == 0 &&
                         ::fchmod(fd, (status.st_mode & 07777) | S_IWUSR) == 0;
    DirectFile direct = reopen_direct(fd, O_WRONLY);
    if (widened && ::fchmod(fd, status.st_mode & 07777) != 0) {
        throw IoError(errno_message("cannot set permissions of", display_name, errno));
    }
    if (!direct.fd.valid()) return std::move(direct.refusal);
    DirectQueue queue = make_queue();
    if (!queue.queue) return "io_uring only, and " + queue.why_not_io_uring;
    queue.queue->send_notes_to(notes);
    return DirectFileWriter(fd, std::move(display_name), std::move(direct), std::move(queue));
}

// The aligned front goes with O_DIRECT, the rest through the page cache. What a direct write
// leaves undone (the file system refuses it after all, EINVAL, or writes short) goes through the
// page cache too, but only once every direct write of the call has ended: a buffered write reads
// in the page it starts in, and if a neighbour's direct write to that page were still under way,
// the stale page would be written back over it later.
void DirectFileWriter::write(std::span<const std::byte> bytes, std::uint64_t at) {
    const std::size_t aligned =
        direct_aligned(bytes.data(), at, 0, alignment_) ? bytes.size() / alignment_ * alignment_ : 0;
    std::vector<Undone> undone;
    if (aligned > 0) undone = write_aligned(*queue_.queue, direct_fd_.get(), bytes.first(aligned), at, display_name_);
    // An unaligned end that starts aligned waits for the next bytes, which may bring it room to be
    // written directly with them (write_with_held_back); anything else unaligned goes through the cache.
    const std::size_t rest = bytes.size() - aligned;
    if (rest > 0 && rest < alignment_ && (at + aligned) % alignment_ == 0) {
        held_back_.assign(bytes.begin() + static_cast<std::ptrdiff_t>(aligned), bytes.end());
    } else if (rest > 0) {
        undone.push_back({aligned, rest, false});
    }
    for (const Undone &piece : undone) write_buffered_at(bytes.subspan(piece.offset, piece.length), at + piece.offset);
    const auto refused = std::find_if(undone.begin(), undone.end(), [](const Undone &piece) { return piece.refused; });
    if (refused != undone.end()) {
        refused_at_ = at + refused->offset;
        direct_fd_.reset(); // the rest is written through the page cache; commit() still flushes it
        write_held_back(at + bytes.size());
    }
    if (::lseek(fd_, static_cast<off_t>(at + bytes.size()), SEEK_SET) < 0) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
}

bool DirectFileWriter::fits_held_back(std::span<std::byte> bytes, std::size_t room_before, std::uint64_t end) const {
    const std::size_t held = held_back_.size();
    return active() && held != 0 && held <= room_before &&
           direct_aligned(bytes.data() - held, end - held, 0, alignment_);
}

void DirectFileWriter::write_with_held_back(std::span<std::byte> bytes, std::uint64_t end) {
    const std::size_t held = held_back_.size();
    std::byte *const start = bytes.data() - held;
    std::copy(held_back_.begin(), held_back_.end(), start);
    held_back_.clear();
    write({start, held + bytes.size()}, end - held);
}

// At its place: the output's end, as each write first sends on what the one before held back. No
// direct write is under way then (each call waits for its own), so none can meet its page.
void DirectFileWriter::write_held_back(std::uint64_t end) {
    if (held_back_.empty()) return;
    write_buffered_at(held_back_, end - held_back_.size());
    held_back_.clear();
}

void DirectFileWriter::write_buffered_at(std::span<const std::byte> bytes, std::uint64_t at) {
    DirectResult result;
    transfer_at(DirectOp::write, fd_, {const_cast<std::byte *>(bytes.data()), bytes.size(), static_cast<off_t>(at)},
                result);
    // A pwrite() of nothing with no error (never seen on a file) is an error too, not a loop.
    if (result.done < bytes.size()) {
        throw IoError(errno_message("error writing", display_name_, result.error != 0 ? result.error : EIO));
    }
}

// Space for the whole direct output in one step, once its size is known: a full disk fails here,
// before any data, and the file's blocks lie together. The length becomes the expected one at
// once (only the temporary file is written directly, and commit() gives it the length written):
// a direct write past the end of the file is one ext4 serialises, each holding the inode lock
// until its data is on the disk, so that writes went one at a time; within the length they are
// in flight together. (Buffered outputs leave it to the page cache's delayed allocation; mapped
// ones reserve their own.)
// A reservation that fails partway (a quota, EDQUOT) may have lengthened the file already, so
// commit() cuts it to the length written whether or not this succeeded.
void DirectFileWriter::reserve(std::uint64_t bytes) {
    if (bytes == 0) return;
    reserved_bytes_ = bytes;
    if (::fallocate(fd_, 0, 0, static_cast<off_t>(bytes)) != 0 && errno == ENOSPC) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
}

// The reservation is the largest the output could be (padding, tags), and the file's length until
// now (or part of it): setting the length written frees the blocks past it.
void DirectFileWriter::release_unwritten_reservation(std::uint64_t written) {
    if (reserved_bytes_ <= written) return;
    if (::ftruncate(fd_, static_cast<off_t>(written)) != 0) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
}

} // namespace aesgpu
