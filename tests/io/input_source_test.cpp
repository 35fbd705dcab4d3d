// SPDX-License-Identifier: Apache-2.0
// Input sources: files and standard input, full reads, sizes and clear errors.
#include "common/errors.hpp"
#include "io/input_source.hpp"
#include "support/test_support.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

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

} // namespace
} // namespace aesgpu::test
