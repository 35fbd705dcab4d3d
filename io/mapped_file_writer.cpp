#include "io/mapped_file_writer.hpp"

#include "io/errors.hpp"

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
                                                        std::uint64_t expected_size, unsigned threads) {
    if (!reserves_real_blocks(fd)) return std::nullopt;
    MappedFileWriter writer(fd, std::move(display_name), size, expected_size);
    if (!writer.reserve(std::max(size, std::uint64_t{1}))) return std::nullopt;
    writer.copiers_ = std::make_unique<WorkerPool>(threads);
    return writer;
}

MappedFileWriter::MappedFileWriter(int fd, std::string display_name, std::uint64_t size, std::uint64_t expected_size)
    : fd_(fd), display_name_(std::move(display_name)), size_(size), expected_size_(expected_size) {}

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

void MappedFileWriter::append(std::span<const std::byte> bytes) {
    if (bytes.empty()) return;
    reserve(size_ + bytes.size());
    static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t first_page = size_ / page * page;
    const std::size_t length = static_cast<std::size_t>(size_ + bytes.size() - first_page);
    void *mapped = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, static_cast<off_t>(first_page));
    if (mapped == MAP_FAILED) throw IoError(errno_message("cannot map", display_name_, errno));
    std::byte *destination = static_cast<std::byte *>(mapped) + (size_ - first_page);
    try {
        copiers_->run_pieces(bytes.size(), [&](std::size_t offset, std::size_t piece) {
            std::memcpy(destination + offset, bytes.data() + offset, piece);
        });
    } catch (...) {
        ::munmap(mapped, length);
        throw;
    }
    ::munmap(mapped, length);
    size_ += bytes.size();
}

void MappedFileWriter::finish() {
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
        throw IoError(errno_message("error writing", display_name_, errno));
    }
}

} // namespace aesgpu
