// SPDX-License-Identifier: Apache-2.0
// Parallel file I/O: the fork-join pool, reads split across threads, and writes through a shared
// mapping. Each must give exactly what one thread with read()/write() would.
#include "common/errors.hpp"
#include "common/worker_pool.hpp"
#include "io/input_source.hpp"
#include "io/io_threads.hpp"
#include "io/mapped_file_writer.hpp"
#include "io/output_sink.hpp"
#include "support/test_support.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace aesgpu::test {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(ParallelRead, MatchesTheFileAndLeavesTheOffsetWhereReadWould) {
    TempDir dir;
    const Bytes content = random_bytes(5 * kMiB + 123);
    write_file(dir.file("in"), content);
    InputSource source = InputSource::open(dir.file("in"), 4);
    // A small read first (as for a Salted__ header), then large ones that go parallel.
    Bytes got(16);
    ASSERT_EQ(source.read_full(std::as_writable_bytes(std::span(got))), 16u);
    for (const std::size_t buffer_bytes : {kMiB + 16, 3 * kMiB, 4 * kMiB}) {
        Bytes buffer(buffer_bytes);
        const std::size_t n = source.read_full(std::as_writable_bytes(std::span(buffer)));
        got.insert(got.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n));
        EXPECT_EQ(static_cast<std::size_t>(lseek(source.fd(), 0, SEEK_CUR)), got.size());
        if (n < buffer_bytes) break;
    }
    EXPECT_EQ(got, content);
    Bytes after(2 * kMiB);
    EXPECT_EQ(source.read_full(std::as_writable_bytes(std::span(after))), 0u) << "at the end, reads give 0";
}

// Gathered reads fill their parts in order, as one buffer would be: split across threads and
// one part after another, ending mid-part at the end of the input.
TEST(ParallelRead, GatheredReadsFillThePartsInOrder) {
    TempDir dir;
    const Bytes content = random_bytes(3 * kMiB + 77);
    write_file(dir.file("in"), content);
    for (const unsigned threads : {1u, 4u}) {
        SCOPED_TRACE(threads);
        InputSource source = InputSource::open(dir.file("in"), threads);
        Bytes first(kMiB + 5), second(7), third(4 * kMiB);
        const std::span<std::byte> parts[] = {std::as_writable_bytes(std::span(first)),
                                              std::as_writable_bytes(std::span(second)),
                                              std::as_writable_bytes(std::span(third))};
        ASSERT_EQ(source.read_gathered(parts), content.size());
        Bytes got = first;
        got.insert(got.end(), second.begin(), second.end());
        got.insert(got.end(), third.begin(), third.begin() + static_cast<std::ptrdiff_t>(content.size() - got.size()));
        EXPECT_EQ(got, content);
        EXPECT_EQ(static_cast<std::size_t>(lseek(source.fd(), 0, SEEK_CUR)), content.size());
    }
}

// /dev/shm (tmpfs) where it exists, and the system's temporary directory.
std::vector<std::filesystem::path> directories_to_try() {
    std::vector<std::filesystem::path> found{std::filesystem::temp_directory_path()};
    if (std::filesystem::is_directory("/dev/shm")) found.emplace_back("/dev/shm");
    return found;
}

// Bytes of the file `st` describes that /proc/self/maps shows mapped in this process.
std::uint64_t mapped_bytes_of(const struct stat &st) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    std::uint64_t total = 0;
    while (std::getline(maps, line)) {
        std::istringstream fields(line);
        std::string range, permissions, offset, device;
        unsigned long inode = 0;
        fields >> range >> permissions >> offset >> device >> inode;
        if (inode != st.st_ino) continue;
        const auto dash = range.find('-');
        total += std::stoull(range.substr(dash + 1), nullptr, 16) - std::stoull(range.substr(0, dash), nullptr, 16);
    }
    return total;
}

TEST(MappedFileWriter, AppendsAcrossGrowthAndCutsTheReservationAtFinish) {
    bool tried_any = false;
    for (const auto &parent : directories_to_try()) {
        SCOPED_TRACE(parent.string());
        TempDir dir(parent);
        const std::string path = dir.file("out");
        UniqueFd fd(open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
        ASSERT_TRUE(fd.valid());
        const Bytes header = random_bytes(16);
        ASSERT_EQ(write(fd.get(), header.data(), header.size()), 16);
        // A small expected size, so the reservation has to grow (and be remapped) twice.
        auto writer = MappedFileWriter::start(fd.get(), "'out'", header.size(), kMiB, 4);
        if (!writer) continue; // this file system does not qualify
        tried_any = true;
        Bytes expected = header;
        for (const std::size_t bytes : {kMiB, std::size_t{1}, 70 * kMiB + 5, 3 * kMiB, std::size_t{0}, 40 * kMiB}) {
            const Bytes part = random_bytes(bytes);
            // In three uneven pieces, as a GCM chunk's segments come (some across a window's end).
            const auto all = std::as_bytes(std::span(part));
            const std::span<const std::byte> pieces[] = {
                all.first(bytes / 3), all.subspan(bytes / 3, bytes / 2 - bytes / 3), all.subspan(bytes / 2)};
            writer->append(Gathered<const std::byte>(pieces));
            expected.insert(expected.end(), part.begin(), part.end());
        }
        struct stat st {};
        ASSERT_EQ(fstat(fd.get(), &st), 0);
        EXPECT_GT(static_cast<std::size_t>(st.st_size), expected.size()) << "reserved beyond the data";
        // One window of the file at most stays mapped, however much was written.
        EXPECT_GT(mapped_bytes_of(st), 0u);
        EXPECT_LE(mapped_bytes_of(st), MappedFileWriter::kWindowBytes) << "the writer keeps more of the file mapped";
        writer->finish();
        EXPECT_EQ(mapped_bytes_of(st), 0u);
        ASSERT_EQ(fstat(fd.get(), &st), 0);
        EXPECT_EQ(static_cast<std::size_t>(st.st_size), expected.size());
        fd.reset();
        EXPECT_EQ(read_file(path), expected);
    }
    if (!tried_any) GTEST_SKIP() << "no file system here qualifies for mapped writes";
}

// Lowers the file-size limit (ulimit -f) for one scope, with SIGXFSZ ignored as aesgpu does.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &saved_);
        old_handler_ = signal(SIGXFSZ, SIG_IGN);
        rlimit lowered = saved_;
        lowered.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &lowered);
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &saved_);
        signal(SIGXFSZ, old_handler_);
    }
    FileSizeLimit(const FileSizeLimit &) = delete;
    FileSizeLimit &operator=(const FileSizeLimit &) = delete;

private:
    rlimit saved_{};
    sighandler_t old_handler_;
};

TEST(MappedFileWriter, NoRoomIsAnErrorNotACrash) {
    // Through the mapped writer on file systems that qualify, through write() elsewhere; with an
    // expected size too, whose reservation meets the limit before any byte is written.
    for (const auto &parent : directories_to_try()) {
        for (const std::uint64_t expected : {std::uint64_t{0}, std::uint64_t{64 * kMiB}}) {
            SCOPED_TRACE(parent.string() + ", expected size " + std::to_string(expected));
            TempDir dir(parent);
            OutputSink sink = OutputSink::create(dir.file("out"), {.io_threads = 4});
            sink.expect_size(expected);
            const Bytes data = random_bytes(3 * kMiB);
            {
                const FileSizeLimit limit(8 * kMiB);
                sink.write_all(std::as_bytes(std::span(data)));
                sink.write_all(std::as_bytes(std::span(data)));
                try {
                    sink.write_all(std::as_bytes(std::span(data))); // 9 MiB: over the limit
                    ADD_FAILURE() << "expected an IoError";
                } catch (const IoError &error) {
                    EXPECT_EQ(std::string(error.what()), "error writing '" + dir.file("out") + "': File too large");
                }
            }
        }
    }
}

} // namespace
} // namespace aesgpu::test
