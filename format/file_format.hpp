// SPDX-License-Identifier: Apache-2.0
#pragma once
// One file format, one object: what stands in front of the data, the key and cipher spec the data
// is ciphered with, and how the pipeline lays the data out. The file job asks these questions and
// no others, so a new mode is a new FileFormat (and its kernels); which format a mode is decided
// here once (file_format_for).
#include "cipher/cipher_backend.hpp"
#include "cipher/framing.hpp"
#include "cipher/secret_bytes.hpp"
#include "cipher/segments.hpp"
#include "io/input_source.hpp"
#include "keys/passphrase.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace aesgpu {

// What a format says of the settings before any file is read: each format states its own, and
// job/setting_rules asks them where a setting counts.
struct FormatRules {
    bool takes_iv = false;             // a raw key's first counter block (CTR)
    bool pads = false;                 // PKCS#7, which no_pad leaves out (ECB)
    bool segments = false;             // segment_bytes and associated_data count (GCM)
    bool pbkdf2 = false;               // a passphrase's key comes from PBKDF2 (else scrypt)
    bool header_records_sizes = false; // a passphrase file's header records its key and segment size
    bool proves_the_key = false;       // authenticated: a wrong key fails before the output counts
    bool takes_192_bit_keys = false;   // every format takes 128- and 256-bit keys
    bool header_sized_by_key = false;  // a raw key's size shapes the header (GCM's stream salt)
    bool encrypts_serially = false;    // each block needs the ciphertext of the one before (CBC): one CPU thread
};

// The rules of `mode`'s format.
[[nodiscard]] FormatRules format_rules(Mode mode);

// What a format needs of a caller's settings (job/CipherSettings extends it).
struct FormatSettings {
    Direction direction = Direction::encrypt;
    Mode mode = Mode::ecb;
    std::optional<CounterBlock> iv;                           // ctr with a raw key; a passphrase derives its own
    bool no_pad = false;                                      // ecb: whole blocks only, no PKCS#7 padding
    unsigned pbkdf2_iterations = kDefaultPbkdf2Iterations;    // ecb, ctr and cbc with a passphrase
    Digest passphrase_digest = kDefaultDigest;                // openssl's -md, for its passphrase format
    OpensslKdf openssl_kdf = OpensslKdf::pbkdf2;              // decrypting: one_pass reads openssl's old KDF
    unsigned passphrase_key_bits = kDefaultPassphraseKeyBits; // the AES key a passphrase gives
    // gcm with a raw key; 0: kDefaultSegmentBytes. A passphrase file's header says its own.
    std::size_t segment_bytes = 0;
    std::string associated_data; // gcm: bound to every segment, not secret
};

// How the key is given, as far as a header depends on it: a passphrase, or a raw key of a size
// (needed only where FormatRules::header_sized_by_key).
struct KeyGiven {
    bool passphrase = false;
    std::size_t raw_key_bytes = 0;
};

// The key the data is ciphered with, and the spec the backends run it with (CTR's IV, GCM's stream).
struct CipherKey {
    SecretBytes key;
    CipherSpec spec;
};

class FileFormat {
public:
    virtual ~FileFormat() = default;

    // What precedes the data: written in front of it when encrypting, read already when decrypting.
    [[nodiscard]] virtual std::span<const std::byte> header() const = 0;
    // How the data's length meets the blocks.
    [[nodiscard]] virtual Framing framing() const = 0;
    // The segments the data is cut into (GCM); none for a format that streams blocks.
    [[nodiscard]] virtual std::optional<SegmentGeometry> segments() const { return std::nullopt; }
    // From the raw key or passphrase (`secret`), as KeyGiven said it is. Throws std::invalid_argument
    // for settings that leave the key incomplete (CTR with a raw key and no IV).
    [[nodiscard]] virtual CipherKey key(const SecretBytes &secret) const = 0;
};

// Encrypting: a fresh header (a new salt, a new GCM stream salt and nonce prefix); `source` is not
// touched. Decrypting: the header read from the start of `source`, which it consumes. Throws
// NoSaltedHeader, NeedsPassphrase, NoPassphraseHeader, FormatError (a header that does not fit), or
// std::invalid_argument (a GCM key of neither 16 nor 32 bytes; a segment too small or too large).
[[nodiscard]] std::unique_ptr<FileFormat> file_format_for(const FormatSettings &settings, const KeyGiven &key,
                                                          InputSource &source);

} // namespace aesgpu
