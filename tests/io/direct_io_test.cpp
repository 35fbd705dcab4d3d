// SPDX-License-Identifier: Apache-2.0
#include "io/direct_io.hpp"

#include "common/errors.hpp"
#include "support/test_support.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace aesgpu::test {
namespace {

TEST(DirectIo, AlignUpRoundsToTheNextMultiple) {
    EXPECT_EQ(align_up(0, 512), 0u);
    EXPECT_EQ(align_up(1, 512), 512u);
    EXPECT_EQ(align_up(512, 512), 512u);
    EXPECT_EQ(align_up(513, 4096), 4096u);
    EXPECT_EQ(align_up(8193, 4096), 12288u);
}

// The alignment given is one a direct read really takes: a buffer, offset and length of exactly
// that alignment read the file's bytes (CI's /tmp is ext4: 4096 there, its block size; statx says 512).
TEST(DirectIo, TheAlignmentItGivesIsOneADirectReadTakes) {
    const TempDir dir;
    const Bytes data = random_bytes(3 * 4096 + 100);
    write_file(dir.file("f"), data);
    const UniqueFd fd = open_direct(dir.file("f"), O_RDONLY);
    if (!fd.valid()) GTEST_SKIP() << "this file system refuses O_DIRECT";
    const auto alignment = direct_io_alignment(fd.get());
    ASSERT_TRUE(alignment.has_value());
    EXPECT_EQ(*alignment & (*alignment - 1), 0u) << *alignment << " is not a power of two";
    EXPECT_GE(*alignment, 512u);
    EXPECT_LE(*alignment, kFallbackDirectAlignment);
    std::unique_ptr<std::byte, decltype(&std::free)> buffer(
        static_cast<std::byte *>(std::aligned_alloc(*alignment, 2 * *alignment)), &std::free);
    ASSERT_EQ(::pread(fd.get(), buffer.get(), *alignment, static_cast<off_t>(*alignment)), ssize_t(*alignment))
        << std::strerror(errno);
    EXPECT_EQ(std::memcmp(buffer.get(), data.data() + *alignment, *alignment), 0);
    // Past the end a direct read is short, and gives the bytes that are there.
    const off_t tail = static_cast<off_t>(data.size() / *alignment * *alignment);
    EXPECT_EQ(::pread(fd.get(), buffer.get(), *alignment, tail), ssize_t(data.size() - std::size_t(tail)));
}

TEST(DirectIo, AMissingFileIsAnErrorNotAFallback) {
    const TempDir dir;
    EXPECT_THROW((void)open_direct(dir.file("missing"), O_RDONLY), IoError);
}

} // namespace
} // namespace aesgpu::test
