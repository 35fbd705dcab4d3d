// SPDX-License-Identifier: Apache-2.0
#include "engine/segment_chunks.hpp"

#include "aes_cpu/evp_gcm.hpp"
#include "common/errors.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace aesgpu {

SegmentChunks::SegmentChunks(const SegmentGeometry &geometry, Direction direction, std::size_t chunk_bytes)
    : geometry_(geometry), direction_(direction),
      segments_per_chunk_(std::max<std::size_t>(1, chunk_bytes / std::max<std::size_t>(geometry.segment_bytes, 1))) {
    if (geometry.segment_bytes <= geometry.header_bytes + kGcmTagBytes) {
        throw std::invalid_argument("a segment must hold more than the stream header and a tag");
    }
}

std::size_t SegmentChunks::input_capacity(std::uint64_t chunk) const {
    const std::uint64_t first = chunk * segments_per_chunk_;
    std::size_t capacity = 0;
    for (std::size_t i = 0; i < segments_per_chunk_; ++i) {
        capacity += direction_ == Direction::encrypt ? geometry_.plaintext_capacity(first + i)
                                                     : geometry_.ciphertext_capacity(first + i);
    }
    return capacity;
}

std::size_t SegmentChunks::read(InputSource &source, std::span<std::byte> slot, std::uint64_t chunk,
                                const Cancellation *cancellation) const {
    if (direction_ == Direction::decrypt) return source.read_full(slot.first(input_capacity(chunk)), cancellation);
    // Plaintext goes where its segment's ciphertext will be, a tag's room apart: one read for the
    // chunk, so that split reads share it.
    std::vector<std::span<std::byte>> parts(segments_per_chunk_);
    std::size_t offset = 0;
    for (std::size_t i = 0; i < segments_per_chunk_; ++i) {
        parts[i] = slot.subspan(offset, geometry_.plaintext_capacity(chunk * segments_per_chunk_ + i));
        offset += parts[i].size() + kGcmTagBytes;
    }
    return source.read_gathered(parts, cancellation);
}

CipherJob SegmentChunks::job(std::size_t slot, std::uint64_t chunk, std::size_t length, bool final) const {
    const std::uint64_t first = chunk * segments_per_chunk_;
    CipherJob job{.slot = slot, .first_segment = first, .holds_last_segment = final};
    // Segments until the input is used up (at least one: an empty stream is one empty segment).
    std::size_t covered = 0;
    std::uint32_t segments = 0;
    while (segments == 0 || covered < length) {
        covered += direction_ == Direction::encrypt ? geometry_.plaintext_capacity(first + segments)
                                                    : geometry_.ciphertext_capacity(first + segments);
        ++segments;
    }
    // Where the stream's segments get their numbers: none may reach 2^32 (its nonce would repeat).
    check_segment_numbers(first, segments, final);
    job.segments = segments;
    if (direction_ == Direction::encrypt) {
        job.bytes = length + segments * kGcmTagBytes;
        return job;
    }
    if (length == 0) throw FormatError("the stream is cut short: it has a header but no segment");
    const std::size_t last = length - (covered - geometry_.ciphertext_capacity(first + segments - 1));
    if (last < kGcmTagBytes) {
        throw StreamCutShort("the stream is cut short: segment " + std::to_string(first + segments - 1) +
                             " is shorter than its tag");
    }
    job.bytes = length;
    return job;
}

std::size_t SegmentChunks::write(OutputSink &sink, std::span<const std::byte> slot, const CipherJob &job) const {
    if (direction_ == Direction::encrypt) {
        sink.write_all(slot.first(job.bytes));
        return job.bytes;
    }
    // Each segment's plaintext, without its tag: one write for the chunk.
    std::vector<std::span<const std::byte>> parts;
    parts.reserve(job.segments);
    std::size_t written = 0;
    for_each_segment(geometry_, job.first_segment, job.segments, job.bytes, job.holds_last_segment,
                     [&](const SegmentSpan &segment) {
                         parts.push_back(slot.subspan(segment.offset, segment.plaintext_bytes()));
                         written += segment.plaintext_bytes();
                     });
    sink.write_gathered(parts);
    return written;
}

void authenticate_first_segment(InputSource &source, const SecretBytes &key, const CipherSpec &spec) {
    const std::size_t capacity = spec.gcm.geometry.ciphertext_capacity(0);
    SecretBytes segment(capacity + 1); // one byte more says whether segment 0 is the last; wiped
    std::span<std::byte> bytes = std::as_writable_bytes(segment.mutable_view());
    const std::size_t length = source.peek(bytes);
    if (length < kGcmTagBytes) {
        throw StreamCutShort("the stream ends inside segment 0's tag (" + std::to_string(length) + " bytes)");
    }
    const bool last = length <= capacity;
    const SegmentSpan first{0, 0, last ? length : capacity, last, 0};
    EvpGcmSegmentCipher(key.view(), spec).transform(bytes.first(first.ciphertext_bytes), first);
}

} // namespace aesgpu
