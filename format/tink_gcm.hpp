// SPDX-License-Identifier: Apache-2.0
#pragma once
// --mode gcm: what goes in front of a file's segments (aesgpu's passphrase header, if a
// passphrase keys it, then Tink's stream header), and the segment key and cipher spec they give.
// docs/FORMAT.md describes the bytes.
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"
#include "format/file_format.hpp"
#include "format/gcm_stream_header.hpp"
#include "io/input_source.hpp"

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace aesgpu {

struct GcmFile {
    std::optional<PassphraseHeader> passphrase;
    StreamHeader stream;
    std::size_t segment_bytes = 0;

    [[nodiscard]] std::size_t key_bytes() const { return stream.salt.size(); }
    // What precedes the segments in the file.
    [[nodiscard]] std::vector<std::byte> header_bytes() const;
    [[nodiscard]] CipherSpec spec(Direction direction) const;
};

// Fresh headers for a new file: with a passphrase header when `with_passphrase`.
[[nodiscard]] GcmFile new_gcm_file(std::size_t key_bytes, std::size_t segment_bytes, bool with_passphrase);

// A raw key was given for a GCM file that starts with aesgpu's passphrase header: it needs its
// passphrase. The caller says how one is given.
class NeedsPassphrase : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The headers at the start of `source`. `raw_key_bytes`: the raw key's size; 0 in passphrase
// mode, where the passphrase header gives the key size and the segment size. Throws FormatError,
// or NeedsPassphrase.
[[nodiscard]] GcmFile read_gcm_file(InputSource &source, std::size_t raw_key_bytes, std::size_t segment_bytes);

// A main key or segment size that no GCM stream takes. what() is the library's wording; a caller
// may word it again from the fields.
class GcmSizeUnfit : public std::invalid_argument {
public:
    enum class Why { key_size, segment_too_small, segment_too_large };
    GcmSizeUnfit(Why reason, std::size_t main_key_bytes);
    Why why;
    std::size_t key_bytes; // the main key's size
};

// Encrypting, new_gcm_file; decrypting, read_gcm_file. `key_bytes`: the main key's size (the raw
// key's, or the one a passphrase is to give); `segment_bytes`: a raw key's segment size (a
// passphrase header gives its own). Throws GcmSizeUnfit for a key that is not 16 or 32 bytes or a
// segment under min_segment_bytes or over kMaxSegmentBytes, FormatError for a header that does not
// fit.
[[nodiscard]] GcmFile gcm_file_for(Direction direction, std::size_t key_bytes, std::size_t segment_bytes,
                                   bool with_passphrase, InputSource &source);

// The segment key: HKDF-SHA256 of the main key (the raw key, or scrypt of the passphrase) with
// the stream's salt and, as info, the passphrase header (if any) followed by `associated_data`.
[[nodiscard]] SecretBytes gcm_segment_key(const GcmFile &file, const SecretBytes &secret,
                                          std::string_view associated_data);

// A GCM stream file: the settings' segment size and associated data, the key's size, and the
// passphrase header when a passphrase keys it.
class TinkGcmFile final : public FileFormat {
public:
    TinkGcmFile(const FormatSettings &settings, GcmFile file);

    // Segments (with associated data), scrypt for a passphrase, whose header records the key and
    // segment size; every segment's tag proves the key. Tink's AES-128 and AES-256 only.
    [[nodiscard]] static FormatRules rules() {
        return {.segments = true, .header_records_sizes = true, .proves_the_key = true, .header_sized_by_key = true};
    }

    [[nodiscard]] std::span<const std::byte> header() const override { return header_; }
    [[nodiscard]] Framing framing() const override { return Framing::any_length; }
    [[nodiscard]] std::optional<SegmentGeometry> segments() const override;
    [[nodiscard]] CipherKey key(const SecretBytes &secret) const override;

    [[nodiscard]] const GcmFile &file() const { return file_; }

private:
    Direction direction_;
    std::string associated_data_;
    GcmFile file_;
    std::vector<std::byte> header_;
};

// gcm_file_for, with the main key's size KeyGiven gives (a passphrase's: the settings') and the
// settings' segment size.
[[nodiscard]] TinkGcmFile tink_gcm_file_for(const FormatSettings &settings, const KeyGiven &key, InputSource &source);

} // namespace aesgpu
