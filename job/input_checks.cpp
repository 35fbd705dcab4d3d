// SPDX-License-Identifier: Apache-2.0
#include "job/input_checks.hpp"

#include "cipher/segments.hpp"
#include "engine/pipeline.hpp"
#include "format/detect.hpp"

#include <algorithm>
#include <array>
#include <span>

namespace aesgpu {

Base64Ciphertext::Base64Ciphertext(const std::string &input_name)
    : FormatError(input_name + " looks base64-encoded (openssl enc -a): decode it first"), input(input_name) {}

SaltedNeedsPassphrase::SaltedNeedsPassphrase(const std::string &input_name)
    : NeedsPassphrase(input_name + " starts with 'Salted__': it was encrypted with a passphrase, not a raw key"),
      input(input_name) {}

void check_ciphertext_start(InputSource &source, bool passphrase_mode) {
    if (!source.size()) return;
    std::array<std::byte, kCiphertextStartBytes> start{};
    const std::size_t length = source.peek(start);
    const CiphertextStart kind = classify_ciphertext_start(std::span(start).first(length));
    if (kind == CiphertextStart::base64_salted || (!passphrase_mode && kind == CiphertextStart::base64)) {
        throw Base64Ciphertext(source.display_name());
    }
    if (!passphrase_mode && kind == CiphertextStart::salted) throw SaltedNeedsPassphrase(source.display_name());
}

SegmentsPastTheLimit::SegmentsPastTheLimit(const std::string &input_name, std::uint64_t segment_count,
                                           std::size_t bytes_per_segment)
    : TooManySegments(input_name + " would take " + std::to_string(segment_count) + " segments of " +
                      std::to_string(bytes_per_segment) +
                      " bytes: a GCM stream has at most 2^32 (its nonce numbers them in 4 bytes)"),
      input(input_name), segments(segment_count), segment_bytes(bytes_per_segment) {}

void check_input_length(const FileFormat &format, Direction direction, const InputSource &source) {
    if (!source.size()) return;
    const std::uint64_t header_bytes = direction == Direction::encrypt ? 0 : format.header().size();
    const std::uint64_t data = *source.size() - std::min<std::uint64_t>(*source.size(), header_bytes);
    check_stream_length(direction, format.framing(), data);
    const std::optional<SegmentGeometry> geometry = format.segments();
    if (!geometry) return;
    const std::uint64_t segments = direction == Direction::encrypt ? geometry->segments_for_plaintext(data)
                                                                   : geometry->segments_for_ciphertext(data);
    if (segments > kMaxSegments) throw SegmentsPastTheLimit(source.display_name(), segments, geometry->segment_bytes);
}

} // namespace aesgpu
