// SPDX-License-Identifier: Apache-2.0
#pragma once
// The words aesgpu's public interface and its internals share: what to do, in which mode, on which
// backend, and the defaults a caller gets without asking. The library's own code uses these too,
// so each default is stated once.
#include <cstddef>

namespace aesgpu {

enum class Direction { encrypt, decrypt };

// ecb: each 16-byte block on its own, PKCS#7 padded (patterns in the data show). ctr: a keystream
// of encrypted counter blocks XORed into the data, as `openssl enc -aes-N-ctr`. gcm: Tink's
// AES-GCM-HKDF streaming segments, each authenticated by its tag. cbc: each block XORed with the
// ciphertext block before it (the IV for the first), PKCS#7 padded, as `openssl enc -aes-N-cbc`:
// encrypting is serial (one CPU thread), decrypting parallel.
enum class Mode { ecb, ctr, gcm, cbc };

// Which processors cipher a file.
enum class BackendChoice {
    automatic, // every GPU and the CPU beside them; the CPU alone without a GPU
    cpu,       // the CPU alone (OpenSSL, AES-NI)
    gpu,       // every GPU; a GPU that fails fails the run. The CPU ciphers only while they start
    all,       // every GPU and the CPU, all run long; the CPU alone without a GPU
};

// How a file's bytes go between the disk and the cipher.
enum class IoChoice {
    automatic, // past the page cache (O_DIRECT) for a regular file of 64 MiB or more that is not
               // cached already, where its file system allows; through the page cache otherwise
    direct,    // past the page cache: regular files only, and the file system must allow it
    buffered,  // through the page cache
};

inline constexpr unsigned kDefaultPbkdf2Iterations = 10000; // openssl enc's default
// The AES key size a passphrase gives unless asked otherwise: the strongest.
inline constexpr unsigned kDefaultPassphraseKeyBits = 256;
// The GCM ciphertext segment size unless asked otherwise: Tink's *_GCM_HKDF_1MB templates'.
inline constexpr std::size_t kDefaultSegmentBytes = std::size_t{1} << 20;

} // namespace aesgpu
