// SPDX-License-Identifier: Apache-2.0
#include "bench/disk_ceilings.hpp"

#include "cipher/cipher_backend.hpp"
#include "common/errors.hpp"
#include "common/worker_pool.hpp"
#include "io/direct_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <vector>

namespace aesgpu {

namespace {

// Requests as big as the pipeline's file chunks.
constexpr std::size_t kRequestBytes = std::size_t{4} << 20;

struct FreeAligned {
    void operator()(std::byte *p) const { std::free(p); }
};

// `streams` tasks on a pool take kRequestBytes requests in turn until `bytes` are done. Short of
// threads the pool makes do with those it got (a ceiling with fewer in flight beats none).
void direct_pass(const std::string &path, int fd, std::uint64_t bytes, bool writing, unsigned streams) {
    const std::size_t alignment = direct_io_alignment(fd).value_or(kFallbackDirectAlignment);
    std::atomic<std::uint64_t> next{0};
    WorkerPool pool(streams, "a disk ceiling", ThreadShortfall::make_do);
    pool.run(streams, [&](std::size_t) {
        std::unique_ptr<std::byte, FreeAligned> buffer(
            static_cast<std::byte *>(std::aligned_alloc(alignment, kRequestBytes)));
        if (!buffer) throw ResourceExhausted("not enough memory for a direct-I/O buffer");
        std::memset(buffer.get(), 0x5a, kRequestBytes);
        for (;;) {
            const std::uint64_t offset = next.fetch_add(kRequestBytes);
            if (offset >= bytes) return;
            const std::size_t length =
                align_up(static_cast<std::size_t>(std::min<std::uint64_t>(kRequestBytes, bytes - offset)), alignment);
            const ssize_t done = writing ? ::pwrite(fd, buffer.get(), length, static_cast<off_t>(offset))
                                         : ::pread(fd, buffer.get(), length, static_cast<off_t>(offset));
            if (done < 0 && errno == EINTR) continue; // a later request covers what is left
            if (done < 0) {
                throw IoError(errno_message(writing ? "error writing" : "error reading", quoted_name(path), errno));
            }
            if (done == 0) return; // the file ended early (it shrank)
        }
    });
    if (writing && ::fdatasync(fd) != 0) throw IoError(errno_message("error writing", quoted_name(path), errno));
}

UniqueFd must_open_direct(const std::string &path, int flags) {
    UniqueFd fd = open_direct(path, flags);
    if (!fd.valid()) throw IoError(errno_message("cannot open", quoted_name(path), EINVAL) + " with O_DIRECT");
    return fd;
}

} // namespace

void direct_read_pass(const std::string &path, unsigned streams) {
    const UniqueFd fd = must_open_direct(path, O_RDONLY);
    const off_t size = ::lseek(fd.get(), 0, SEEK_END);
    if (size < 0) throw IoError(errno_message("cannot read", quoted_name(path), errno));
    direct_pass(path, fd.get(), static_cast<std::uint64_t>(size), false, streams);
}

void direct_write_pass(const std::string &path, std::uint64_t bytes, unsigned streams) {
    const UniqueFd fd = must_open_direct(path, O_WRONLY | O_CREAT | O_TRUNC);
    direct_pass(path, fd.get(), bytes, true, streams);
}

void direct_copy_floor_pass(const std::string &from, const std::string &to, std::uint64_t bytes, unsigned streams) {
    // Short of a thread, one after the other: where the disk shares its bandwidth, about the same.
    WorkerPool pool(2, "a disk ceiling", ThreadShortfall::make_do);
    pool.run(2, [&](std::size_t side) {
        if (side == 0) {
            direct_read_pass(from, streams);
        } else {
            direct_write_pass(to, bytes, streams);
        }
    });
}

std::string why_no_disk_ceilings(const std::string &path) {
    const UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file.valid()) return errno_message("cannot open", quoted_name(path), errno);
    return reopen_direct(file.get(), O_RDONLY).refusal;
}

void make_file_durable(const std::string &path) {
    const UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file.valid() || ::fsync(file.get()) != 0)
        throw IoError(errno_message("cannot sync", quoted_name(path), errno));
    const std::string parent = std::filesystem::path(path).parent_path().string();
    const UniqueFd directory(::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!directory.valid() || ::fsync(directory.get()) != 0) {
        throw IoError(errno_message("cannot sync the directory of", quoted_name(path), errno));
    }
}

bool evict_from_page_cache(const std::string &path) {
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return false;
    (void)::fdatasync(fd.get()); // dirty pages cannot be dropped
    return ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED) == 0;
}

} // namespace aesgpu
