// SPDX-License-Identifier: Apache-2.0
#pragma once
// Appends to a regular file through a shared memory mapping, several threads copying each large
// write. write() into one file is one thread's copy (tmpfs and ext4 take the inode lock), while
// page faults on different pages of a mapping run in parallel: on the H200 machine 8 GiB land in
// /dev/shm in 1.7 s this way against 3.6 s with write() (bench/NOTES.md).
//
// The space is reserved with fallocate() before it is mapped, so a full file system is an error
// from fallocate and never a SIGBUS from a page fault. Only file systems whose fallocate reserves
// real blocks qualify (tmpfs, ext4, XFS); copy-on-write ones may still fail at write-back.
#include "common/note_sink.hpp"
#include "io/gathered.hpp"
#include "io/io_threads.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace aesgpu {

class MappedFileWriter {
public:
    // A writer for `fd` (a regular file opened read-write, `size` bytes long now, writes going to
    // its end), or nothing when the file system does not qualify. `expected_size` (0: unknown)
    // sizes the first reservation; `threads` copy each append (fewer, told to `notes`, where the
    // system refuses some). Throws IoError when reserving space fails for want of it.
    static std::optional<MappedFileWriter> start(int fd, std::string display_name, std::uint64_t size,
                                                 std::uint64_t expected_size, unsigned threads,
                                                 NoteSink *notes = nullptr);

    // The most of the file mapped at once: a window that slides along as appends fill it, so the
    // process holds kWindowBytes of the file (and its page tables) whatever the file's size.
    static constexpr std::uint64_t kWindowBytes = std::uint64_t{64} << 20;

    MappedFileWriter(MappedFileWriter &&other) noexcept;
    MappedFileWriter &operator=(MappedFileWriter &&) = delete;
    MappedFileWriter(const MappedFileWriter &) = delete;
    MappedFileWriter &operator=(const MappedFileWriter &) = delete;
    ~MappedFileWriter(); // unmaps; the file keeps its reserved length until finish()

    // Appends `bytes`, growing the reservation as needed. Throws IoError.
    void append(const Gathered<const std::byte> &bytes);
    // Unmaps and cuts the file to the bytes written, releasing the unused reservation.
    void finish();

private:
    MappedFileWriter(int fd, std::string display_name, std::uint64_t size, std::uint64_t expected_size);
    // False when the file system cannot reserve space (only possible on the first call).
    bool reserve(std::uint64_t end);
    // Maps the window that holds file offset `at`; false when the address space is too short.
    bool map_window(std::uint64_t at);
    // pwrite() at the end of what was written, where no window can be mapped.
    void write_at_end(std::span<const std::byte> bytes);
    void unmap() noexcept;

    int fd_;
    std::string display_name_;
    std::uint64_t size_;          // bytes written: the file's logical length
    std::uint64_t expected_size_; // the caller's hint, 0 when unknown
    std::uint64_t reserved_ = 0;  // bytes allocated with fallocate()
    std::byte *window_ = nullptr; // mapping of [window_start_, window_start_ + window_bytes_)
    std::uint64_t window_start_ = 0;
    std::uint64_t window_bytes_ = 0;
    bool mapping_failed_ = false;         // short of address space: pwrite() from then on
    std::unique_ptr<WorkerPool> copiers_; // a pointer, so that the writer can move
};

} // namespace aesgpu
