// SPDX-License-Identifier: Apache-2.0
#include "keys/salted_header.hpp"

#include <algorithm>
#include <cstring>

namespace aesgpu {

std::array<std::byte, kSaltedHeaderBytes> make_salted_header(const Salt &salt) {
    std::array<std::byte, kSaltedHeaderBytes> header{};
    std::memcpy(header.data(), kSaltedMagic.data(), kSaltedMagic.size());
    std::memcpy(header.data() + kSaltedMagic.size(), salt.data(), salt.size());
    return header;
}

std::optional<Salt> parse_salted_header(std::span<const std::byte> header) {
    if (header.size() < kSaltedHeaderBytes ||
        std::memcmp(header.data(), kSaltedMagic.data(), kSaltedMagic.size()) != 0) {
        return std::nullopt;
    }
    Salt salt{};
    std::memcpy(salt.data(), header.data() + kSaltedMagic.size(), salt.size());
    return salt;
}

} // namespace aesgpu
