// SPDX-License-Identifier: Apache-2.0
#pragma once
// What an input shows before anything needs the key, checked where it can be seen without
// consuming it: a ciphertext's first bytes (encoded as text, or openssl's passphrase format given
// a raw key), and a regular file's length (the check the pipeline makes at a stream's end, made up
// front where the length is known). A file that fails them fails before a passphrase is asked
// for or any work is done.
#include "common/errors.hpp"
#include "format/file_format.hpp"
#include "format/tink_gcm.hpp"
#include "io/input_source.hpp"

#include <aesgpu/types.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace aesgpu {

// A ciphertext that looks base64-encoded (openssl enc -a): it is to be decoded first.
class Base64Ciphertext : public FormatError {
public:
    explicit Base64Ciphertext(const std::string &input_name);
    std::string input; // the input's display name
};

// A ciphertext in openssl's passphrase format ("Salted__" and a salt) given a raw key.
class SaltedNeedsPassphrase : public NeedsPassphrase {
public:
    explicit SaltedNeedsPassphrase(const std::string &input_name);
    std::string input; // the input's display name
};

// Decrypting a regular file: its first bytes, peeked. Throws Base64Ciphertext (with a passphrase,
// only where the text is openssl's passphrase format encoded), or SaltedNeedsPassphrase where
// `passphrase_mode` is false. Other inputs are left to their header's reading.
void check_ciphertext_start(InputSource &source, bool passphrase_mode);

// An input of known length that needs more segments than a GCM stream may number (2^32).
class SegmentsPastTheLimit : public TooManySegments {
public:
    SegmentsPastTheLimit(const std::string &input_name, std::uint64_t segment_count, std::size_t bytes_per_segment);
    std::string input; // the input's display name
    std::uint64_t segments;
    std::size_t segment_bytes;
};

// Where `source` has a known length: whole blocks where `format` needs them (check_stream_length:
// NotWholeBlocks, FormatError), and no more segments than a stream may have (SegmentsPastTheLimit).
// Decrypting, `format`'s header is read already and is not part of the data.
void check_input_length(const FileFormat &format, Direction direction, const InputSource &source);

} // namespace aesgpu
