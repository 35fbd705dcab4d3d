// SPDX-License-Identifier: Apache-2.0
#pragma once
// Other tools' files, told by their first bytes: what a user may hand aesgpu by mistake (a gzip
// archive, an age or gpg file, plain text), so that `aesgpu info` names it instead of calling it
// raw ciphertext. A magic number is evidence, not proof: random ciphertext starts so rarely
// (gzip's 3 bytes one time in 2^24, the others less often).
#include <cstddef>
#include <optional>
#include <span>

namespace aesgpu {

enum class ForeignFormat {
    gzip,               // 1f 8b 08
    zstd,               // a zstd frame: 28 b5 2f fd
    xz,                 // fd 37 7a 58 5a 00
    age,                // "age-encryption.org/v1", binary or armored
    openpgp_public_key, // gpg: a public-key encrypted session key packet (tag 1) leads
    openpgp_passphrase, // gpg -c: a symmetric-key encrypted session key packet (tag 3) leads
    openpgp_armored,    // "-----BEGIN PGP MESSAGE-----"
    text,               // UTF-8 text: printable characters and white space only, 16 bytes or more
};

// What `start` (a file's first bytes, up to 64 of them) is, where it is one of these.
[[nodiscard]] std::optional<ForeignFormat> foreign_format(std::span<const std::byte> start);

} // namespace aesgpu
