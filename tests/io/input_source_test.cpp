// SPDX-License-Identifier: Apache-2.0
// Input sources: files and standard input, full reads, sizes and clear errors.
#include "common/errors.hpp"
#include "common/unique_fd.hpp"
#include "io/input_source.hpp"
#include "support/test_support.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <thread>

namespace aesgpu::test {
namespace {

TEST(InputSource, ReportsMissingFilesAndDirectories) {
    TempDir dir;
    try {
        (void)InputSource::open(dir.file("missing"));
        ADD_FAILURE() << "opened a missing file";
    } catch (const IoError &e) {
        EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
    }
    EXPECT_THROW(InputSource::open(dir.path().string()), IoError);
}

// Under a memory limit what was read of a file leaves the page cache behind the reads, plain or split.
TEST(InputSource, DropsWhatWasReadFromThePageCacheWhenAsked) {
    TempDir dir;
    if (on_tmpfs(dir.path().string())) GTEST_SKIP() << "tmpfs keeps every page: its pages are the file";
    write_file(dir.file("in"), random_bytes(8u << 20));
    // Written pages are dirty until they reach the disk, and only clean ones can leave the cache.
    const int fd = ::open(dir.file("in").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_EQ(::fsync(fd), 0);
    ::close(fd);
    for (const unsigned threads : {1u, 4u}) {
        for (const bool drop : {false, true}) {
            SCOPED_TRACE(std::to_string(threads) + (drop ? " threads, dropping" : " threads, keeping"));
            InputSource source = InputSource::open(dir.file("in"), threads);
            if (drop) source.drop_behind();
            std::vector<std::byte> buffer(1u << 20);
            std::size_t total = 0;
            while (const std::size_t got = source.read_full(buffer)) total += got;
            EXPECT_EQ(total, 8u << 20);
            const long long cached = cached_bytes(dir.file("in"));
            ASSERT_GE(cached, 0);
            if (drop) {
                EXPECT_LT(cached, 1 << 20) << "what was read stayed in the page cache";
            } else {
                EXPECT_GT(cached, 4 << 20) << "this file system gives read pages back by itself: no test";
            }
        }
    }
}

TEST(InputSource, ReadsFullBuffersAndReportsTheSize) {
    TempDir dir;
    const Bytes data = random_bytes(10000);
    write_file(dir.file("in"), data);
    InputSource input = InputSource::open(dir.file("in"));
    EXPECT_EQ(input.size(), 10000u);
    std::vector<std::byte> buffer(4096);
    EXPECT_EQ(input.read_full(buffer), 4096u);
    EXPECT_EQ(input.read_full(buffer), 4096u);
    EXPECT_EQ(input.read_full(buffer), 10000u - 8192u);
    EXPECT_EQ(input.read_full(buffer), 0u);
}

std::vector<std::byte> as_bytes_vector(const Bytes &data, std::size_t from, std::size_t length) {
    std::vector<std::byte> bytes(length);
    std::memcpy(bytes.data(), data.data() + from, length);
    return bytes;
}

// Peeking reads ahead without going on: the reads after it start where they would have, in a file
// (pread) and in a pipe (the bytes peeked are given again), and a peek past the end is short.
TEST(InputSource, PeekLeavesTheBytesForTheReadsAfterIt) {
    TempDir dir;
    const Bytes data = random_bytes(100000);
    write_file(dir.file("in"), data);
    ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
    std::thread writer([&] {
        const UniqueFd fd(::open(dir.file("fifo").c_str(), O_WRONLY | O_CLOEXEC));
        for (std::size_t at = 0; at < data.size();) {
            const ssize_t wrote = ::write(fd.get(), data.data() + at, std::min<std::size_t>(4096, data.size() - at));
            if (wrote <= 0) return;
            at += static_cast<std::size_t>(wrote);
        }
    });
    for (const char *name : {"in", "fifo"}) {
        SCOPED_TRACE(name);
        InputSource input = InputSource::open(dir.file(name));
        std::vector<std::byte> start(10);
        ASSERT_EQ(input.peek(start), 10u);
        EXPECT_EQ(start, as_bytes_vector(data, 0, 10));
        std::vector<std::byte> more(70000); // more than the first peek held: the pipe is read on
        ASSERT_EQ(input.peek(more), 70000u);
        EXPECT_EQ(more, as_bytes_vector(data, 0, 70000));
        std::vector<std::byte> part(30000);
        ASSERT_EQ(input.read_full(part), 30000u); // from what was peeked
        EXPECT_EQ(part, as_bytes_vector(data, 0, 30000));
        ASSERT_EQ(input.peek(start), 10u); // a peek after a read starts where the reads go on
        EXPECT_EQ(start, as_bytes_vector(data, 30000, 10));
        std::vector<std::byte> rest(80000);
        ASSERT_EQ(input.read_full(rest), 70000u); // the peeked bytes, then the pipe
        rest.resize(70000);
        EXPECT_EQ(rest, as_bytes_vector(data, 30000, 70000)) << "the peeked bytes come once, in order";
        EXPECT_EQ(input.peek(start), 0u) << "past the end";
    }
    writer.join();
}

} // namespace
} // namespace aesgpu::test
