// SPDX-License-Identifier: Apache-2.0
#include "engine/gcm_range.hpp"

#include "aes_cpu/evp_gcm.hpp"
#include "common/errors.hpp"

#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

namespace aesgpu {

namespace {

// Where segment `number` starts among the segments' ciphertext: segment 0 is shorter by the header.
std::uint64_t segment_start(const SegmentGeometry &geometry, std::uint64_t number) {
    return number == 0 ? 0 : geometry.ciphertext_capacity(0) + (number - 1) * geometry.segment_bytes;
}

// The segment that holds plaintext byte `at`.
std::uint64_t segment_of(const SegmentGeometry &geometry, std::uint64_t at) {
    const std::uint64_t first = geometry.plaintext_capacity(0);
    return at < first ? 0 : 1 + (at - first) / geometry.plaintext_capacity(1);
}

// Where segment `number`'s plaintext starts in the stream's plaintext.
std::uint64_t plaintext_start(const SegmentGeometry &geometry, std::uint64_t number) {
    return number == 0 ? 0 : geometry.plaintext_capacity(0) + (number - 1) * geometry.plaintext_capacity(1);
}

// Reads `buffer.size()` bytes at `offset` of `source`, all of them or IoError.
void read_at(InputSource &source, std::uint64_t offset, std::span<std::byte> buffer) {
    if (::lseek(source.fd(), static_cast<off_t>(offset), SEEK_SET) < 0) {
        throw IoError(errno_message("cannot seek in", source.display_name(), errno));
    }
    if (source.read_full(buffer) != buffer.size()) {
        throw IoError(source.display_name() + " ended before its segments did: it changed while being read");
    }
}

} // namespace

RangePastTheEnd::RangePastTheEnd(const ByteRange &range, std::uint64_t plaintext)
    : std::runtime_error("the range " + std::to_string(range.offset) + ":" +
                         (range.length ? std::to_string(*range.length) : std::string()) +
                         " goes past the plaintext's end (" + std::to_string(plaintext) + " bytes)"),
      plaintext_bytes(plaintext) {}

std::uint64_t stream_plaintext_bytes(const SegmentGeometry &geometry, std::uint64_t data_bytes) {
    const std::uint64_t segments = geometry.segments_for_ciphertext(data_bytes);
    const std::uint64_t last = data_bytes - segment_start(geometry, segments - 1);
    if (last < kGcmTagBytes) {
        throw StreamCutShort("the stream ends inside the tag of segment " + std::to_string(segments - 1) + " (" +
                             std::to_string(last) + " bytes of it)");
    }
    return data_bytes - segments * kGcmTagBytes;
}

RangeRead decrypt_gcm_range(InputSource &source, std::uint64_t data_start, std::uint64_t data_bytes,
                            const SecretBytes &key, const CipherSpec &spec, const ByteRange &range, OutputSink &sink) {
    const SegmentGeometry &geometry = spec.gcm.geometry;
    const std::uint64_t plaintext = stream_plaintext_bytes(geometry, data_bytes);
    if (range.offset > plaintext || (range.length && *range.length > plaintext - range.offset)) {
        throw RangePastTheEnd(range, plaintext);
    }
    const std::uint64_t range_bytes = range.length.value_or(plaintext - range.offset);
    const std::uint64_t last_segment = geometry.segments_for_ciphertext(data_bytes) - 1;
    const std::uint64_t end = range.offset + range_bytes;
    // An empty range covers no segment, but at the very end it still checks the last one: the
    // stream is whole.
    if (range_bytes == 0 && end != plaintext) return {0, 0};
    const std::uint64_t first = segment_of(geometry, std::min(range.offset, end == plaintext ? plaintext - 1 : end));
    const std::uint64_t final = end == plaintext ? last_segment : segment_of(geometry, end - 1);
    EvpGcmSegmentCipher cipher(key.view(), spec);
    SecretBytes buffer(geometry.segment_bytes); // plaintext once checked: wiped when done
    const std::span<std::byte> bytes = std::as_writable_bytes(buffer.mutable_view());
    std::uint64_t read = 0;
    for (std::uint64_t number = plaintext == 0 ? 0 : first; number <= final; ++number) {
        const std::uint64_t at = segment_start(geometry, number);
        const std::size_t length =
            static_cast<std::size_t>(std::min<std::uint64_t>(geometry.ciphertext_capacity(number), data_bytes - at));
        read_at(source, data_start + at, bytes.first(length));
        read += length;
        const SegmentSpan segment{number, 0, length, number == last_segment, 0};
        cipher.transform(bytes.first(length), segment); // AuthenticationFailed before anything of it is written
        const std::uint64_t text_start = plaintext_start(geometry, number);
        const std::uint64_t from = std::max(range.offset, text_start);
        const std::uint64_t to = std::min(end, text_start + segment.plaintext_bytes());
        if (to > from) sink.write_all(bytes.subspan(static_cast<std::size_t>(from - text_start), to - from));
    }
    return {read, range_bytes};
}

} // namespace aesgpu
