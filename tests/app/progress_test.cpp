// SPDX-License-Identifier: Apache-2.0
#include "app/progress.hpp"

#include <gtest/gtest.h>

namespace aesgpu {
namespace {

TEST(Progress, ShowsBarPercentSizesRateEtaAndBackend) {
    const std::string line = format_progress(std::uint64_t{1} << 30, std::uint64_t{4} << 30, 0.5, "gpu");
    EXPECT_NE(line.find(" 25%"), std::string::npos) << line;
    EXPECT_NE(line.find("1.0 GiB / 4.0 GiB"), std::string::npos) << line;
    EXPECT_NE(line.find("2.0 GiB/s"), std::string::npos) << line; // 2^30 bytes in 0.5 s: binary units, as pv
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

TEST(Progress, NeverWiderThanAskedAndKeepsWhatMattersMost) {
    for (std::size_t width = 1; width <= 200; ++width) {
        for (const auto total :
             {std::optional<std::uint64_t>(std::uint64_t{7} << 40), std::optional<std::uint64_t>()}) {
            const std::string line = format_progress(std::uint64_t{3} << 40, total, 3600.5, "cpu", width);
            EXPECT_LE(line.size(), width) << line;
        }
    }
    // Narrow: the bar and the backend go before the percentage, sizes and ETA do.
    const std::string narrow = format_progress(1u << 30, std::uint64_t{4} << 30, 0.5, "gpu", 50);
    EXPECT_EQ(narrow.find('['), std::string::npos) << narrow;
    EXPECT_NE(narrow.find(" 25%"), std::string::npos) << narrow;
    EXPECT_NE(narrow.find("ETA"), std::string::npos) << narrow;
    EXPECT_NE(format_progress(1u << 30, std::uint64_t{4} << 30, 0.5, "gpu", 120).find("[######"), std::string::npos);
}

} // namespace
} // namespace aesgpu
