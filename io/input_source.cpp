// SPDX-License-Identifier: Apache-2.0
#include "io/input_source.hpp"

#include "common/errors.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <vector>

namespace aesgpu {

namespace {
constexpr int kPreferredPipeBytes = 1 << 20;
constexpr long kConfigFsMagic = 0x62656570; // configfs: not in every <linux/magic.h>

// A regular file of a file system whose sizes are not file lengths: proc and sysfs say 0 or 4096
// and make the contents as they are read. Such a file is read to its end like a pipe.
bool size_is_not_its_length(int fd) {
    struct statfs fs {};
    if (::fstatfs(fd, &fs) != 0) return false;
    switch (static_cast<long>(fs.f_type)) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case kConfigFsMagic:
    case SECURITYFS_MAGIC: return true;
    default: return false;
    }
}
} // namespace

void enlarge_pipe_buffer(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
        // Fails harmlessly when the limit (/proc/sys/fs/pipe-max-size) is lower.
        (void)::fcntl(fd, F_SETPIPE_SZ, kPreferredPipeBytes);
    }
}

bool same_file(const struct stat &a, const struct stat &b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

InputSource::InputSource(UniqueFd owned, int fd, std::string display_name, unsigned io_threads)
    : owned_fd_(std::move(owned)), fd_(fd), display_name_(std::move(display_name)), io_threads_(io_threads) {
    if (::fstat(fd_, &status_) != 0) throw IoError(errno_message("cannot stat", display_name_, errno));
    if (S_ISDIR(status_.st_mode)) throw IoError(display_name_ + " is a directory");
    if (S_ISREG(status_.st_mode)) start_offset_ = std::max<off_t>(0, ::lseek(fd_, 0, SEEK_CUR));
    sized_ = S_ISREG(status_.st_mode) && !size_is_not_its_length(fd_);
}

InputSource InputSource::open(const std::string &path, unsigned io_threads) {
    if (path == "-") return standard_input(io_threads);
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) throw IoError(errno_message("cannot open", quoted_name(path), errno));
    const int raw = fd.get();
    InputSource source(std::move(fd), raw, quoted_name(path), io_threads);
    if (S_ISREG(source.status_.st_mode)) {
        (void)::posix_fadvise(raw, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    enlarge_pipe_buffer(raw);
    return source;
}

InputSource InputSource::adopt(UniqueFd fd, std::string display_name) {
    const int raw = fd.get();
    return InputSource(std::move(fd), raw, std::move(display_name), 1);
}

InputSource InputSource::standard_input(unsigned io_threads) {
    const int flags = ::fcntl(STDIN_FILENO, F_GETFL);
    // main() puts an O_PATH descriptor, good for nothing, where standard input was closed.
    if (flags < 0 || (flags & O_PATH) != 0 || (flags & O_ACCMODE) == O_WRONLY) {
        throw IoError("cannot read standard input: it is closed (or open for writing only)");
    }
    InputSource source(UniqueFd{}, STDIN_FILENO, "standard input", io_threads);
    enlarge_pipe_buffer(STDIN_FILENO);
    return source;
}

bool InputSource::is_terminal() const {
    return ::isatty(fd_) == 1;
}

std::size_t InputSource::read_full(std::span<std::byte> buffer, const Cancellation *cancellation) {
    return read_gathered(std::span(&buffer, 1), cancellation);
}

std::size_t InputSource::read_full_with_room(std::span<std::byte> buffer, std::size_t room) {
    if (direct_fd_.valid() && room >= direct_alignment_) {
        if (const std::optional<std::size_t> got = read_aligned_around(buffer)) return *got;
    }
    return read_full(buffer);
}

// Reads the aligned range around `buffer` directly (the caller's room takes what lies outside it)
// where the buffer's address is as far into an alignment unit as the file offset is; none
// otherwise, nothing read. The file offset moves on by the bytes that landed in `buffer`.
std::optional<std::size_t> InputSource::read_aligned_around(std::span<std::byte> buffer) {
    const off_t at = ::lseek(fd_, 0, SEEK_CUR);
    if (at < 0) throw IoError(errno_message("error reading", display_name_, errno));
    const std::size_t lead = static_cast<std::size_t>(at) % direct_alignment_;
    std::byte *const from = buffer.data() - lead;
    if (!direct_aligned(from, 0, 0, direct_alignment_)) return std::nullopt;
    const std::span<std::byte> around(from, align_up(lead + buffer.size(), direct_alignment_));
    const std::size_t got =
        read_direct_requests(Gathered<std::byte>(std::span(&around, 1)), at - static_cast<off_t>(lead));
    const std::size_t filled = std::min(buffer.size(), got - std::min(got, lead));
    if (::lseek(fd_, at + static_cast<off_t>(filled), SEEK_SET) < 0) {
        throw IoError(errno_message("error reading", display_name_, errno));
    }
    return filled;
}

std::optional<std::string> InputSource::read_directly(DirectEngine engine) {
    return read_directly([engine] { return make_direct_queue(engine); });
}

void InputSource::send_notes_to(NoteSink *notes) {
    notes_ = notes;
    if (direct_queue_.queue) direct_queue_.queue->send_notes_to(notes);
}

std::optional<std::string> InputSource::read_directly(const DirectQueueMaker &make_queue) {
    if (!sized_) return "it is not a regular file";
    DirectFile direct = reopen_direct(fd_, O_RDONLY);
    if (!direct.fd.valid()) return direct.refusal;
    direct_queue_ = make_queue();
    if (!direct_queue_.queue) return "io_uring only, and " + direct_queue_.why_not_io_uring;
    direct_queue_.queue->send_notes_to(notes_);
    direct_fd_ = std::move(direct.fd);
    direct_alignment_ = direct.alignment;
    drop_behind_ = false; // nothing of it enters the page cache
    return std::nullopt;
}

bool InputSource::direct_fits(const std::byte *data, off_t offset, std::size_t length) const {
    return direct_fd_.valid() && direct_aligned(data, static_cast<std::uint64_t>(offset), length, direct_alignment_);
}

std::size_t InputSource::read_gathered(std::span<const std::span<std::byte>> parts, const Cancellation *cancellation) {
    const Gathered<std::byte> buffer(parts);
    std::size_t filled = 0;
    // Direct reads wait on the disk, not the CPU: several in flight whatever io_threads says.
    const bool split =
        (io_threads_ > 1 || direct_fd_.valid()) && sized_ && buffer.size() >= 2 * kFileCopyPieces.min_piece_bytes;
    const off_t start = split ? ::lseek(fd_, 0, SEEK_CUR) : -1;
    if (start >= 0) {
        filled = read_parallel(buffer, start);
    } else if (direct_fd_.valid()) {
        // Direct reads need the offset: pread from the file offset, and move it on as read() would.
        const off_t at = ::lseek(fd_, 0, SEEK_CUR);
        if (at < 0) throw IoError(errno_message("error reading", display_name_, errno));
        for (const std::span<std::byte> part : parts) {
            const std::size_t got = fill(part, at + static_cast<off_t>(filled), nullptr);
            filled += got;
            if (got < part.size()) break;
        }
        if (::lseek(fd_, at + static_cast<off_t>(filled), SEEK_SET) < 0) {
            throw IoError(errno_message("error reading", display_name_, errno));
        }
    } else {
        for (const std::span<std::byte> part : parts) {
            const std::size_t peeked = take_peeked(part);
            const std::size_t got = peeked + fill(part.subspan(peeked), std::nullopt, cancellation);
            filled += got;
            if (got < part.size()) break;
        }
    }
    if (drop_behind_) {
        // From a little before where the last call stopped: the kernel drops only whole folios,
        // and a large one (ext4 makes them) may straddle that point.
        const off_t now = ::lseek(fd_, 0, SEEK_CUR);
        const off_t from = std::max<off_t>(0, dropped_ - kLargestFolioBytes);
        if (now > from) (void)::posix_fadvise(fd_, from, now - from, POSIX_FADV_DONTNEED);
        dropped_ = std::max(dropped_, now);
    }
    return filled;
}

std::size_t InputSource::peek(std::span<std::byte> buffer) {
    return peek(buffer, 0);
}

std::size_t InputSource::peek(std::span<std::byte> buffer, std::uint64_t skip) {
    if (S_ISREG(status_.st_mode) || S_ISBLK(status_.st_mode)) {
        const off_t at = ::lseek(fd_, 0, SEEK_CUR);
        if (at < 0) throw IoError(errno_message("error reading", display_name_, errno));
        return fill(buffer, at + static_cast<off_t>(skip), nullptr);
    }
    const std::size_t held = hold(skip + buffer.size());
    const std::size_t length = held > skip ? std::min<std::size_t>(buffer.size(), held - skip) : 0;
    std::copy_n(peeked_.begin() + static_cast<std::ptrdiff_t>(peeked_from_ + skip), length, buffer.begin());
    return length;
}

std::uint64_t InputSource::look_ahead(std::uint64_t limit) {
    if (sized_) {
        const std::uint64_t end = static_cast<std::uint64_t>(status_.st_size);
        return std::min(limit, end - std::min(end, position()));
    }
    if (S_ISREG(status_.st_mode) || S_ISBLK(status_.st_mode)) {
        // Its size says nothing (a block device's, proc's): counted by reading.
        std::vector<std::byte> scratch(std::min<std::uint64_t>(limit, 1u << 20));
        std::uint64_t counted = 0;
        while (counted < limit) {
            const std::size_t got =
                peek(std::span(scratch).first(std::min<std::uint64_t>(scratch.size(), limit - counted)), counted);
            counted += got;
            if (got == 0) break;
        }
        return counted;
    }
    return hold(limit);
}

// A stream's next `bytes` bytes kept in peeked_ (fewer where it ends); returns how many are held.
// The buffer grows as the stream gives bytes, doubling: a short stream held for a long look ahead
// takes little memory.
std::size_t InputSource::hold(std::size_t bytes) {
    peeked_.erase(peeked_.begin(), peeked_.begin() + static_cast<std::ptrdiff_t>(peeked_from_));
    peeked_from_ = 0;
    while (peeked_.size() < bytes) {
        const std::size_t held = peeked_.size();
        const std::size_t more = std::min(bytes - held, std::max<std::size_t>(held, std::size_t{64} << 10));
        peeked_.resize(held + more);
        const std::size_t got = fill(std::span(peeked_).subspan(held, more), std::nullopt, nullptr);
        peeked_.resize(held + got);
        if (got < more) break; // the stream ended
    }
    return peeked_.size();
}

// What peek() read of a pipe and no read has taken yet, into the start of `buffer`.
std::size_t InputSource::take_peeked(std::span<std::byte> buffer) {
    const std::size_t length = std::min(buffer.size(), peeked_.size() - peeked_from_);
    std::copy_n(peeked_.begin() + static_cast<std::ptrdiff_t>(peeked_from_), length, buffer.begin());
    peeked_from_ += length;
    if (peeked_from_ == peeked_.size()) {
        peeked_.clear();
        peeked_.shrink_to_fit();
        peeked_from_ = 0;
    }
    return length;
}

// Reads until `buffer` is full or the input ends: read() from the file offset, or pread() from
// `offset` when given. Short reads and EINTR are absorbed. Files and block devices never keep a
// read waiting; anything else may, so there the read first waits for data or the cancellation.
std::size_t InputSource::fill(std::span<std::byte> buffer, std::optional<off_t> offset,
                              const Cancellation *cancellation) {
    const bool may_wait = cancellation && !S_ISREG(status_.st_mode) && !S_ISBLK(status_.st_mode);
    std::size_t filled = 0;
    bool direct_refused = false;
    while (filled < buffer.size()) {
        if (may_wait) wait_readable(fd_, *cancellation);
        std::byte *const into = buffer.data() + filled;
        const std::size_t wanted = buffer.size() - filled;
        const bool direct =
            offset && !direct_refused && direct_fits(into, *offset + static_cast<off_t>(filled), wanted);
        const ssize_t got = direct   ? ::pread(direct_fd_.get(), into, wanted, *offset + static_cast<off_t>(filled))
                            : offset ? ::pread(fd_, into, wanted, *offset + static_cast<off_t>(filled))
                                     : ::read(fd_, into, wanted);
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            if (direct && errno == EINVAL) { // no O_DIRECT here after all: read it buffered
                direct_refused = true;
                continue;
            }
            throw IoError(errno_message("error reading", display_name_, errno));
        }
        filled += static_cast<std::size_t>(got);
    }
    return filled;
}

// Each thread preads its piece at its offset from `start` (the file offset now). A piece that comes up short marks the
// end of the file; the bytes read are those before the first such end.
std::size_t InputSource::read_parallel(const Gathered<std::byte> &buffer, off_t start) {
    if (direct_fd_.valid()) return read_direct_requests(buffer, start);
    if (!readers_) {
        readers_ = std::make_unique<WorkerPool>(std::min(io_threads_, kMaxReadThreads), "parallel file reads",
                                                ThreadShortfall::make_do, notes_);
    }
    std::atomic<std::size_t> end{buffer.size()};
    readers_->run_pieces(buffer.size(), kFileCopyPieces, [&](std::size_t offset, std::size_t length) {
        buffer.for_each_in(offset, length, [&](std::span<std::byte> piece, std::size_t at) {
            const std::size_t filled = fill(piece, start + static_cast<off_t>(at), nullptr);
            if (filled == piece.size()) return true;
            std::size_t seen = end.load();
            while (at + filled < seen && !end.compare_exchange_weak(seen, at + filled)) {
            }
            return false;
        });
    });
    const std::size_t filled = end.load();
    // Leave the offset where a plain read() would, for a caller sharing the descriptor.
    if (::lseek(fd_, start + static_cast<off_t>(filled), SEEK_SET) < 0) {
        throw IoError(errno_message("error reading", display_name_, errno));
    }
    return filled;
}

std::uint64_t InputSource::position() const {
    return static_cast<std::uint64_t>(std::max<off_t>(0, ::lseek(fd_, 0, SEEK_CUR)));
}

std::optional<std::uint64_t> InputSource::size() const {
    if (sized_) return static_cast<std::uint64_t>(std::max<off_t>(0, status_.st_size - start_offset_));
    return std::nullopt;
}

// The buffer cut into as many direct requests as the queue keeps in flight (a request that
// crosses the ring's wrap is two). What a request leaves undone, the file system refusing it or
// the unaligned rest after the end of the file, is read through the page cache afterwards, which
// finds the end of the file where there is one; the bytes read are those before the first end.
std::size_t InputSource::read_direct_requests(const Gathered<std::byte> &buffer, off_t start) {
    const std::size_t piece = piece_length(buffer.size(), direct_queue_.queue->depth(), kFileCopyPieces);
    std::vector<DirectRequest> requests;
    std::vector<DirectRequest> buffered; // parts the file system's alignment does not allow
    for (std::size_t offset = 0; offset < buffer.size(); offset += piece) {
        buffer.for_each_in(
            offset, std::min(piece, buffer.size() - offset), [&](std::span<std::byte> part, std::size_t at) {
                const DirectRequest request{part.data(), part.size(), start + static_cast<off_t>(at)};
                (direct_fits(part.data(), request.offset, part.size()) ? requests : buffered).push_back(request);
                return true;
            });
    }
    std::vector<DirectResult> results(requests.size());
    direct_queue_.queue->run(DirectOp::read, direct_fd_.get(), requests, results);
    for (std::size_t i = 0; i < requests.size(); ++i) {
        if (results[i].error != 0 && results[i].error != EINVAL) {
            throw IoError(errno_message("error reading", display_name_, results[i].error));
        }
        if (results[i].done < requests[i].length) {
            const std::size_t done = results[i].done;
            buffered.push_back(
                {requests[i].data + done, requests[i].length - done, requests[i].offset + static_cast<off_t>(done)});
        }
    }
    std::size_t end = buffer.size();
    for (const DirectRequest &part : buffered) {
        const std::size_t filled = fill({part.data, part.length}, part.offset, nullptr);
        if (filled < part.length) end = std::min(end, static_cast<std::size_t>(part.offset - start) + filled);
    }
    // Leave the offset where a plain read() would, for a caller sharing the descriptor.
    if (::lseek(fd_, start + static_cast<off_t>(end), SEEK_SET) < 0) {
        throw IoError(errno_message("error reading", display_name_, errno));
    }
    return end;
}

} // namespace aesgpu
