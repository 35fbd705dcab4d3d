// SPDX-License-Identifier: Apache-2.0
// CLI11's terse parse errors in plain words, in the phrasings of the CLI11 versions the supported
// distributions ship (2.3 on Debian 12, 2.4 on Ubuntu 24.04).
#include "app/cli.hpp"

#include <gtest/gtest.h>

namespace aesgpu::test {
namespace {

TEST(ParseErrors, RepeatsAndRangesAreSaidPlainly) {
    EXPECT_EQ(plain_parse_error("--devices: At Most 1 required but received 2"),
              "--devices: given 2 times; give it once");
    EXPECT_EQ(plain_parse_error("--io-threads: Value abc not in range 1 to 64"),
              "--io-threads: 'abc' is not a number from 1 to 64");
    EXPECT_EQ(plain_parse_error("--io-threads: Value abc not in range [1 - 64]"),
              "--io-threads: 'abc' is not a number from 1 to 64");
    EXPECT_EQ(plain_parse_error("--threads: Value -5 not in range [0 - 4096]"),
              "--threads: '-5' is not a number from 0 to 4096");
    // Anything else stays as CLI11 wrote it.
    EXPECT_EQ(plain_parse_error("The following arguments were not expected: x"),
              "The following arguments were not expected: x");
}

} // namespace
} // namespace aesgpu::test
