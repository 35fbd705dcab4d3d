// SPDX-License-Identifier: Apache-2.0
// Input sources: files and standard input, full reads, sizes and clear errors.
#include "common/errors.hpp"
#include "io/input_source.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

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
