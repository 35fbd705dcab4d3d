// SPDX-License-Identifier: Apache-2.0
#include "io/mapped_file_writer.hpp"

#include "common/errors.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace aesgpu {

namespace {

constexpr std::uint64_t kMinReservationBytes = std::uint64_t{64} << 20;

bool reserves_real_blocks(int fd) {
    struct statfs info {};
    if (::fstatfs(fd, &info) != 0) return false;
    switch (static_cast<unsigned long>(info.f_type)) {
    case TMPFS_MAGIC:
    case EXT4_SUPER_MAGIC: // also ext2 and ext3, which share the magic number
    case XFS_SUPER_MAGIC: return true;
    default: return false;
    }
}

} // namespace

std::optional<MappedFileWriter> MappedFileWriter::start(int fd, std::string display_name, std::uint64_t size,
                                                        std::uint64_t expected_size, unsigned threads,
                                                        NoteSink *notes) {
    if (!reserves_real_blocks(fd)) return std::nullopt;
    MappedFileWriter writer(fd, std::move(display_name), size, expected_size);
    if (!writer.reserve(std::max(size, std::uint64_t{1}))) return std::nullopt;
    writer.copiers_ = std::make_unique<WorkerPool>(threads, "parallel file writes", ThreadShortfall::make_do, notes);
    return writer;
}

MappedFileWriter::MappedFileWriter(int fd, std::string display_name, std::uint64_t size, std::uint64_t expected_size)
    : fd_(fd), display_name_(std::move(display_name)), size_(size), expected_size_(expected_size) {}

MappedFileWriter::MappedFileWriter(MappedFileWriter &&other) noexcept
    : fd_(other.fd_), display_name_(std::move(other.display_name_)), size_(other.size_),
      expected_size_(other.expected_size_), reserved_(other.reserved_), window_(std::exchange(other.window_, nullptr)),
      window_start_(other.window_start_), window_bytes_(std::exchange(other.window_bytes_, 0)),
      mapping_failed_(other.mapping_failed_), copiers_(std::move(other.copiers_)) {}

MappedFileWriter::~MappedFileWriter() {
    unmap();
}

void MappedFileWriter::unmap() noexcept {
    if (window_) ::munmap(window_, window_bytes_);
    window_ = nullptr;
    window_bytes_ = 0;
}

// Grows the reservation to cover `end`: by half again at least (few calls for a file of unknown
// size), or to the expected size; exactly to `end` when the file system is too full for more.
bool MappedFileWriter::reserve(std::uint64_t end) {
    if (end <= reserved_) return true;
    std::uint64_t target = std::max({end, expected_size_, reserved_ + reserved_ / 2, kMinReservationBytes});
    if (::fallocate(fd_, 0, static_cast<off_t>(reserved_), static_cast<off_t>(target - reserved_)) != 0) {
        const int error = errno;
        if (reserved_ == 0 && (error == EOPNOTSUPP || error == ENOSYS)) return false;
        if (target == end) throw IoError(errno_message("error writing", display_name_, error));
        if (::fallocate(fd_, 0, static_cast<off_t>(reserved_), static_cast<off_t>(end - reserved_)) != 0) {
            throw IoError(errno_message("error writing", display_name_, errno));
        }
        target = end;
    }
    reserved_ = target;
    return true;
}

// Windows start at multiples of kWindowBytes (a multiple of the page, as mmap's offset must be)
// and end at the reservation at most: a page past the file's end would be SIGBUS. False when the
// address space is short (ulimit -v): pwrite() then does the job, on one thread.
bool MappedFileWriter::map_window(std::uint64_t at) {
    unmap();
    const std::uint64_t start = at / kWindowBytes * kWindowBytes;
    const std::uint64_t bytes = std::min(kWindowBytes, reserved_ - start);
    void *mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, static_cast<off_t>(start));
    if (mapped == MAP_FAILED && errno == ENOMEM) return false;
    if (mapped == MAP_FAILED) throw IoError(errno_message("cannot map", display_name_, errno));
    window_ = static_cast<std::byte *>(mapped);
    window_start_ = start;
    window_bytes_ = bytes;
    return true;
}

void MappedFileWriter::write_at_end(std::span<const std::byte> bytes) {
    while (!bytes.empty()) {
        const ssize_t wrote = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(size_));
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote < 0) throw IoError(errno_message("error writing", display_name_, errno));
        bytes = bytes.subspan(static_cast<std::size_t>(wrote));
        size_ += static_cast<std::uint64_t>(wrote);
    }
}

void MappedFileWriter::append(const Gathered<const std::byte> &bytes) {
    reserve(size_ + bytes.size());
    std::size_t done = 0;
    while (done < bytes.size()) {
        if (!mapping_failed_ && (!window_ || size_ < window_start_ || size_ >= window_start_ + window_bytes_)) {
            mapping_failed_ = !map_window(size_);
        }
        if (mapping_failed_) {
            bytes.for_each_in(done, bytes.size() - done, [this](std::span<const std::byte> piece, std::size_t) {
                write_at_end(piece);
                return true;
            });
            return;
        }
        const std::size_t piece = static_cast<std::size_t>(
            std::min<std::uint64_t>(bytes.size() - done, window_start_ + window_bytes_ - size_));
        std::byte *destination = window_ + (size_ - window_start_);
        copiers_->run_pieces(piece, kFileCopyPieces, [&](std::size_t offset, std::size_t length) {
            bytes.for_each_in(done + offset, length, [&](std::span<const std::byte> from, std::size_t at) {
                std::memcpy(destination + (at - done), from.data(), from.size());
                return true;
            });
        });
        done += piece;
        size_ += piece;
    }
}

void MappedFileWriter::finish() {
    unmap();
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
}

} // namespace aesgpu
