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
#include <cstdlib>
#include <cstring>
#include <utility>

namespace aesgpu {

namespace {

constexpr std::uint64_t kMinReservationBytes = std::uint64_t{64} << 20;

#ifndef MADV_POPULATE_WRITE
constexpr int MADV_POPULATE_WRITE = 23; // Linux 5.14; older headers lack it, older kernels say EINVAL
#endif

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
                                                        std::uint64_t expected_size, unsigned threads) {
    if (!reserves_real_blocks(fd)) return std::nullopt;
    MappedFileWriter writer(fd, std::move(display_name), size, expected_size);
    if (!writer.reserve(std::max(size, std::uint64_t{1}))) return std::nullopt;
    writer.copiers_ = std::make_unique<WorkerPool>(threads, "parallel file writes");
    return writer;
}

// EXPERIMENT (reverted in the next commit): each lean-path change alone, for bench/probes/lean-ab.sh.
static bool experiment(const char *name) {
    return std::getenv(name) != nullptr;
}

MappedFileWriter::MappedFileWriter(int fd, std::string display_name, std::uint64_t size, std::uint64_t expected_size)
    : fd_(fd), display_name_(std::move(display_name)), size_(size), expected_size_(expected_size),
      reservation_(std::make_unique<Reservation>()),
      populates_(std::make_unique<std::atomic<bool>>(!experiment("AESGPU_EXPERIMENT_NO_POPULATE"))) {}

MappedFileWriter::MappedFileWriter(MappedFileWriter &&other) noexcept
    : fd_(other.fd_), display_name_(std::move(other.display_name_)), size_(other.size_),
      expected_size_(other.expected_size_), reservation_(std::move(other.reservation_)),
      reserver_(std::move(other.reserver_)), window_(std::exchange(other.window_, nullptr)),
      window_start_(other.window_start_), window_bytes_(std::exchange(other.window_bytes_, 0)),
      mapping_failed_(other.mapping_failed_), populates_(std::move(other.populates_)),
      copiers_(std::move(other.copiers_)) {}

MappedFileWriter::~MappedFileWriter() {
    stop_reserving();
    unmap();
}

void MappedFileWriter::unmap() noexcept {
    if (window_) ::munmap(window_, window_bytes_);
    window_ = nullptr;
    window_bytes_ = 0;
}

void MappedFileWriter::stop_reserving() noexcept {
    if (!reserver_.joinable()) return;
    {
        std::lock_guard lock(reservation_->mutex);
        reservation_->stopping = true;
    }
    reservation_->stop_asked.notify_all();
    reserver_.join();
}

void MappedFileWriter::reserve_ahead(Reservation &reservation, int fd, std::uint64_t goal) noexcept {
    for (;;) {
        std::uint64_t from = 0;
        {
            std::lock_guard lock(reservation.mutex);
            if (reservation.stopping || reservation.reserved >= goal) return;
            from = reservation.reserved;
        }
        // Outside the lock: the writer may reserve what it needs meanwhile (the kernel orders the
        // two on the inode lock, and a range reserved twice is simply reserved).
        const std::uint64_t to = std::min(goal, from + kReserveStepBytes);
        if (::fallocate(fd, 0, static_cast<off_t>(from), static_cast<off_t>(to - from)) != 0) return;
        std::lock_guard lock(reservation.mutex);
        reservation.reserved = std::max(reservation.reserved, to);
    }
}

// Grows the reservation to cover `end`: by half again at least (few calls for a file of unknown
// size), and at least kMinReservationBytes; exactly to `end` when the file system is too full for
// more. Where the size to expect is known, a thread then reserves the rest of it in steps, ahead
// of the writer, instead of this call reserving it all before the first byte is written.
bool MappedFileWriter::reserve(std::uint64_t end) {
    std::lock_guard lock(reservation_->mutex);
    std::uint64_t &reserved = reservation_->reserved;
    if (end <= reserved) return true;
    std::uint64_t target = std::max({end, reserved + reserved / 2, kMinReservationBytes});
    if (expected_size_ > end) target = std::min(target, expected_size_);
    if (experiment("AESGPU_EXPERIMENT_RESERVE_ALL")) target = std::max(target, expected_size_);
    if (::fallocate(fd_, 0, static_cast<off_t>(reserved), static_cast<off_t>(target - reserved)) != 0) {
        const int error = errno;
        if (reserved == 0 && (error == EOPNOTSUPP || error == ENOSYS)) return false;
        if (target == end) throw IoError(errno_message("error writing", display_name_, error));
        if (::fallocate(fd_, 0, static_cast<off_t>(reserved), static_cast<off_t>(end - reserved)) != 0) {
            throw IoError(errno_message("error writing", display_name_, errno));
        }
        target = end;
    }
    reserved = target;
    if (expected_size_ > reserved && !reserver_.joinable()) {
        reserver_ = std::thread(
            [&reservation = *reservation_, fd = fd_, goal = expected_size_] { reserve_ahead(reservation, fd, goal); });
    }
    return true;
}

// Windows start at multiples of kWindowBytes (a multiple of the page, as mmap's offset must be)
// and end at the reservation at most: a page past the file's end would be SIGBUS. False when the
// address space is short (ulimit -v): pwrite() then does the job, on one thread.
bool MappedFileWriter::map_window(std::uint64_t at) {
    unmap();
    const std::uint64_t start = at / kWindowBytes * kWindowBytes;
    std::uint64_t reserved = 0;
    {
        std::lock_guard lock(reservation_->mutex);
        reserved = reservation_->reserved;
    }
    const std::uint64_t bytes = std::min(kWindowBytes, reserved - start);
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
            populate(destination + offset, length);
            bytes.for_each_in(done + offset, length, [&](std::span<const std::byte> from, std::size_t at) {
                std::memcpy(destination + (at - done), from.data(), from.size());
                return true;
            });
        });
        done += piece;
        size_ += piece;
    }
}

// Maps the pages of [at, at + length) in one call rather than one fault per page. Only a speed-up:
// where the kernel has no MADV_POPULATE_WRITE (before Linux 5.14) or it fails, the copy takes the
// faults as before (the space is reserved either way, so they cannot fail for want of it).
void MappedFileWriter::populate(std::byte *at, std::size_t length) const noexcept {
    if (!populates_->load(std::memory_order_relaxed)) return;
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto first = reinterpret_cast<std::uintptr_t>(at) / page * page;
    const auto end = std::min((reinterpret_cast<std::uintptr_t>(at) + length + page - 1) / page * page,
                              (reinterpret_cast<std::uintptr_t>(window_) + window_bytes_ + page - 1) / page * page);
    if (::madvise(reinterpret_cast<void *>(first), end - first, MADV_POPULATE_WRITE) != 0) {
        populates_->store(false, std::memory_order_relaxed);
    }
}

void MappedFileWriter::finish() {
    stop_reserving();
    unmap();
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
}

} // namespace aesgpu
