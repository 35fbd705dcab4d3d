// SPDX-License-Identifier: Apache-2.0
#pragma once
// The segments of an authenticated stream (Tink's AES-GCM-HKDF streaming): ciphertext segments of
// a fixed size, each a GCM ciphertext followed by its 16-byte tag, the first shorter by the
// stream header, the last shorter or full. A job holds whole segments laid out as their
// ciphertext is; in place, each segment's plaintext sits where its ciphertext is, in front of its
// tag, and out of place the plaintext side has no room for tags (CipherJob). io/ and the backends
// walk a job's segments through here.
#include "common/errors.hpp"

#include <aesgpu/types.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace aesgpu {

inline constexpr std::size_t kGcmTagBytes = 16;
inline constexpr std::size_t kGcmNonceBytes = 12;
// Tink's nonce: a 7-byte random prefix per stream, the 4-byte segment number, a last-segment byte.
inline constexpr std::size_t kGcmNoncePrefixBytes = 7;
// kDefaultSegmentBytes: <aesgpu/types.hpp>.
// The largest segment aesgpu writes or reads: a reader holds a whole segment before its tag says
// whether any of it (or of the header that sized it) is genuine.
inline constexpr std::size_t kMaxSegmentBytes = std::size_t{64} << 20;
// The nonce holds a segment's number in 4 bytes: segments 0 to 2^32 - 1, and no more. Segment
// 2^32 would reuse segment 0's nonce under the same key.
inline constexpr std::uint64_t kMaxSegments = std::uint64_t{1} << 32;

// Throws TooManySegments unless the `count` segments from `first` are numbered below kMaxSegments
// and, where the last of them is segment 2^32 - 1, it ends the stream (`holds_last`): as Tink's
// encrypter refuses it, since another would follow. Called where the pipeline numbers segments,
// and by every backend's submit.
inline void check_segment_numbers(std::uint64_t first, std::uint64_t count, bool holds_last) {
    if (count <= kMaxSegments && first <= kMaxSegments - count && (holds_last || first + count < kMaxSegments)) {
        return;
    }
    throw TooManySegments("a GCM stream has at most 2^32 segments (its nonce numbers them in 4 bytes), and this one "
                          "goes on past segment " +
                          std::to_string(std::min(first + count, kMaxSegments) - 1));
}

struct SegmentGeometry {
    std::size_t segment_bytes = 0; // ciphertext segment size, tag included
    std::size_t header_bytes = 0;  // the stream header, which segment 0 makes room for

    [[nodiscard]] std::size_t ciphertext_capacity(std::uint64_t segment) const {
        return segment == 0 ? segment_bytes - header_bytes : segment_bytes;
    }
    [[nodiscard]] std::size_t plaintext_capacity(std::uint64_t segment) const {
        return ciphertext_capacity(segment) - kGcmTagBytes;
    }
    // Segments of a stream of `plaintext` bytes as Tink writes it: full ones, then the last with
    // the rest (full too when the data fills it exactly; one empty segment for no data).
    [[nodiscard]] std::uint64_t segments_for_plaintext(std::uint64_t plaintext) const {
        const std::uint64_t first = plaintext_capacity(0);
        if (plaintext <= first) return 1;
        const std::uint64_t rest = plaintext_capacity(1);
        return 1 + (plaintext - first + rest - 1) / rest;
    }
    // Segments of a stream whose segments' ciphertext (after the header) is `ciphertext` bytes:
    // full ones, then a shorter last one.
    [[nodiscard]] std::uint64_t segments_for_ciphertext(std::uint64_t ciphertext) const {
        const std::uint64_t first = ciphertext_capacity(0);
        if (ciphertext <= first) return 1;
        return 1 + (ciphertext - first + segment_bytes - 1) / segment_bytes;
    }
    // The segments' ciphertext for `plaintext` bytes: the data and a tag per segment.
    [[nodiscard]] std::uint64_t ciphertext_for_plaintext(std::uint64_t plaintext) const {
        return plaintext + segments_for_plaintext(plaintext) * kGcmTagBytes;
    }
};

// One segment of a job: its number in the stream, where its ciphertext starts among the job's
// segments, and how long that ciphertext is (tag included; the plaintext is 16 bytes shorter).
struct SegmentSpan {
    std::uint64_t number = 0;
    std::size_t offset = 0;
    std::size_t ciphertext_bytes = 0;
    bool last = false; // the stream's last segment: its nonce says so
    std::size_t plaintext_offset = 0; // where its plaintext starts in the job's plaintext without tags

    [[nodiscard]] std::size_t plaintext_bytes() const { return ciphertext_bytes - kGcmTagBytes; }
};

// Calls `visit(SegmentSpan)` for each of the `segments` segments from `first_segment` that fill
// `bytes` bytes of ciphertext: all full but the job's last, which takes the rest and is the
// stream's last when `holds_last`. Throws std::invalid_argument when they cannot fill `bytes`
// that way (a job that does not match the geometry).
template <typename Visit>
void for_each_segment(const SegmentGeometry &geometry, std::uint64_t first_segment, std::uint32_t segments,
                      std::size_t bytes, bool holds_last, Visit &&visit) {
    if (segments == 0) {
        if (bytes != 0) throw std::invalid_argument("a job of no segments holds no bytes");
        return;
    }
    std::size_t offset = 0;
    for (std::uint32_t i = 0; i < segments; ++i) {
        const std::uint64_t number = first_segment + i;
        const std::size_t capacity = geometry.ciphertext_capacity(number);
        const bool job_last = i + 1 == segments;
        if (offset > bytes) throw std::invalid_argument("the job's bytes do not match its segments");
        const std::size_t length = job_last ? bytes - offset : capacity;
        if (length > capacity || length < kGcmTagBytes || (job_last && !holds_last && length != capacity)) {
            throw std::invalid_argument("the job's bytes do not match its segments");
        }
        visit(SegmentSpan{number, offset, length, job_last && holds_last, offset - i * kGcmTagBytes});
        offset += length;
    }
}

} // namespace aesgpu
