// SPDX-License-Identifier: Apache-2.0
#include "io/pkcs7.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace aesgpu {
namespace {

TEST(Pkcs7, PadsEveryLengthToTheNextBlock) {
    for (std::size_t length = 0; length <= 48; ++length) {
        std::vector<std::byte> buffer(length + 16, std::byte{0xee});
        const std::size_t padded = pkcs7_pad(buffer, length);
        const std::size_t pad = 16 - length % 16;
        ASSERT_EQ(padded, length + pad) << length;
        for (std::size_t i = length; i < padded; ++i) EXPECT_EQ(buffer[i], std::byte(pad)) << length;
        ASSERT_EQ(pkcs7_unpadded_length(std::span(buffer).first(padded)), length);
    }
}

TEST(Pkcs7, RefusesToPadWithoutRoom) {
    std::array<std::byte, 16> buffer{};
    EXPECT_THROW(pkcs7_pad(buffer, 16), std::logic_error);
}

TEST(Pkcs7, RejectsMalformedPadding) {
    std::array<std::byte, 32> block{};
    block.fill(std::byte{4});
    EXPECT_EQ(pkcs7_unpadded_length(block), 28u);
    block.back() = std::byte{0};
    EXPECT_FALSE(pkcs7_unpadded_length(block)) << "pad value 0";
    block.back() = std::byte{17};
    EXPECT_FALSE(pkcs7_unpadded_length(block)) << "pad value above the block size";
    block.fill(std::byte{5});
    block[27] = std::byte{4};
    EXPECT_FALSE(pkcs7_unpadded_length(block)) << "one pad byte differs";
    EXPECT_FALSE(pkcs7_unpadded_length(std::span(block).first(0))) << "empty";
    EXPECT_FALSE(pkcs7_unpadded_length(std::span(block).first(20))) << "ragged";
    block.fill(std::byte{16});
    EXPECT_EQ(pkcs7_unpadded_length(block), 16u) << "a whole padding block";
}

} // namespace
} // namespace aesgpu
