// SPDX-License-Identifier: Apache-2.0
#pragma once
// scrypt (RFC 7914) over OpenSSL's EVP_KDF "SCRYPT": the KDF of aesgpu's GCM passphrase files
// (format/gcm_stream_header.hpp holds the header that records its parameters).
#include "cipher/secret_bytes.hpp"

#include <cstdint>
#include <span>

namespace aesgpu {

struct ScryptCost {
    unsigned log2_n = 16; // N = 65536: 64 MiB with r = 8
    unsigned r = 8;
    unsigned p = 1;
};

// The most memory scrypt may take here (N * r * 128 bytes): 1 GiB.
inline constexpr std::uint64_t kMaxScryptBytes = std::uint64_t{1} << 30;

// scrypt(passphrase, salt, N, r, p), key_bytes long. Throws std::runtime_error with OpenSSL's
// reason where the KDF fails (a cost over kMaxScryptBytes among them).
[[nodiscard]] SecretBytes scrypt(const SecretBytes &passphrase, std::span<const std::uint8_t> salt, ScryptCost cost,
                                 std::size_t key_bytes);

} // namespace aesgpu
