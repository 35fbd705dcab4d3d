// SPDX-License-Identifier: Apache-2.0
#include "app/progress.hpp"

#include <gtest/gtest.h>

namespace aesgpu {
namespace {

TEST(Progress, ShowsBarPercentSizesRateEtaAndBackend) {
    const std::string line = format_progress(std::uint64_t{1} << 30, std::uint64_t{4} << 30, 0.5, "gpu");
    EXPECT_NE(line.find(" 25%"), std::string::npos) << line;
    EXPECT_NE(line.find("1.0 GiB / 4.0 GiB"), std::string::npos) << line;
    EXPECT_NE(line.find("2.15 GB/s"), std::string::npos) << line; // 2^30 bytes in 0.5 s
    EXPECT_NE(line.find("ETA 0:02"), std::string::npos) << line;  // 3 GiB left at 2^31 B/s: 1.5 s
    EXPECT_NE(line.find("gpu"), std::string::npos) << line;
    EXPECT_EQ(line.front(), '[');
    EXPECT_LE(line.size(), 80u) << line;
}

TEST(Progress, WithoutATotalShowsBytesAndRateOnly) {
    const std::string line = format_progress(3u << 20, std::nullopt, 1.0, "cpu");
    EXPECT_EQ(line.find('['), std::string::npos) << line;
    EXPECT_NE(line.find("3.0 MiB"), std::string::npos) << line;
    EXPECT_EQ(line.find("ETA"), std::string::npos) << line;
}

TEST(Progress, ClampsAtTheEnd) {
    const std::string line = format_progress(5000, 4000, 1.0, "cpu");
    EXPECT_NE(line.find("100%"), std::string::npos) << line;
    EXPECT_NE(line.find("ETA 0:00"), std::string::npos) << line;
}

} // namespace
} // namespace aesgpu
