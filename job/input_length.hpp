// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a regular file's length tells before anything needs the key: the check the pipeline makes
// at a stream's end, made up front where the length is known, so a ragged file or one too long for
// its segments fails before a passphrase is asked for or any work is done.
#include "common/errors.hpp"
#include "format/file_format.hpp"
#include "io/input_source.hpp"

#include <aesgpu/types.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace aesgpu {

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
