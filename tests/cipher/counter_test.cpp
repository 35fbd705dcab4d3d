// SPDX-License-Identifier: Apache-2.0
// CTR's counter arithmetic: one 128-bit big-endian number, carried across every byte.
#include "cipher/cipher_backend.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

namespace aesgpu::test {
namespace {

CounterBlock counter(const std::string &hex) {
    const Bytes bytes = from_hex(hex);
    CounterBlock block{};
    std::copy(bytes.begin(), bytes.end(), block.begin());
    return block;
}

std::string hex(const CounterBlock &block) {
    return to_hex(Bytes(block.begin(), block.end()));
}

TEST(AdvanceCounter, AddsAsOneBigEndianNumber) {
    EXPECT_EQ(hex(advance_counter(counter("00000000000000000000000000000000"), 0)), "00000000000000000000000000000000");
    EXPECT_EQ(hex(advance_counter(counter("00000000000000000000000000000000"), 1)), "00000000000000000000000000000001");
    EXPECT_EQ(hex(advance_counter(counter("000000000000000000000000000000ff"), 1)), "00000000000000000000000000000100");
    EXPECT_EQ(hex(advance_counter(counter("0123456789abcdef0123456789abcdef"), 0x1122334455667788)),
              "0123456789abcdef124578abdf124577");
}

TEST(AdvanceCounter, CarriesPastThirtyTwoAndSixtyFourBitsAndWrapsAt128) {
    // OpenSSL's CTR carries into every byte (GCM's counter would wrap within the low 32 bits).
    EXPECT_EQ(hex(advance_counter(counter("0123456789abcdef01234567ffffffff"), 1)), "0123456789abcdef0123456800000000");
    EXPECT_EQ(hex(advance_counter(counter("0123456789abcdefffffffffffffffff"), 1)), "0123456789abcdf00000000000000000");
    EXPECT_EQ(hex(advance_counter(counter("00000000000000fffffffffffffffffe"), 0xffffffffffffffff)),
              "0000000000000100fffffffffffffffd");
    EXPECT_EQ(hex(advance_counter(counter("ffffffffffffffffffffffffffffffff"), 2)), "00000000000000000000000000000001");
}

} // namespace
} // namespace aesgpu::test
