// SPDX-License-Identifier: Apache-2.0
// The numbers the bench and the progress line print, without fmt (the library links none).
#include "common/units.hpp"

#include <gtest/gtest.h>

#include <string>

namespace aesgpu::test {
namespace {

TEST(Units, HumanBytesUsesBinaryUnitsWithOneDecimal) {
    EXPECT_EQ(human_bytes(0), "0 B");
    EXPECT_EQ(human_bytes(1023), "1023 B");
    EXPECT_EQ(human_bytes(1024), "1.0 KiB");
    EXPECT_EQ(human_bytes(1.5 * (1 << 20)), "1.5 MiB");
    EXPECT_EQ(human_bytes(double(1u << 30)), "1.0 GiB");
    EXPECT_EQ(human_bytes(2048.0 * (1ull << 40)), "2048.0 TiB") << "no unit past TiB";
}

TEST(Units, FixedRoundsAsPrintfAndKeepsEveryDigitOfAHugeValue) {
    EXPECT_EQ(fixed(0.4567, 2), "0.46");
    EXPECT_EQ(fixed(99.5, 0), "100");
    EXPECT_EQ(fixed(0.125, 2), "0.12") << "the binary value, to nearest even";
    EXPECT_EQ(fixed(-1.0, 1), "-1.0");
    const std::string huge = fixed(1e80, 2);
    EXPECT_EQ(huge.size(), 81u + 3u) << huge;
    EXPECT_EQ(huge.substr(huge.size() - 3), ".00");
}

} // namespace
} // namespace aesgpu::test
