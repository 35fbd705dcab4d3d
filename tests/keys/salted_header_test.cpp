// SPDX-License-Identifier: Apache-2.0
// The header `openssl enc` puts before passphrase-encrypted data.
#include "keys/salted_header.hpp"

#include <gtest/gtest.h>

#include <string>

namespace aesgpu::test {
namespace {

TEST(SaltedHeader, RoundTripsAndRejectsOtherData) {
    const Salt salt{1, 2, 3, 4, 5, 6, 7, 8};
    const auto header = make_salted_header(salt);
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(header.data()), 8), "Salted__");
    EXPECT_EQ(parse_salted_header(header), salt);
    EXPECT_FALSE(parse_salted_header(std::span(header).first(15)));
    auto other = header;
    other[7] = std::byte{'x'};
    EXPECT_FALSE(parse_salted_header(other));
}

} // namespace
} // namespace aesgpu::test
