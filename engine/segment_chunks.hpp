// SPDX-License-Identifier: Apache-2.0
#pragma once
// How the pipeline's chunks map onto the segments of an authenticated stream
// (cipher/segments.hpp): each chunk holds the same number of whole segments, laid out in its slot
// as their ciphertext is. Encrypting, each segment's plaintext is read to where its ciphertext
// goes, leaving room for its tag; decrypting, the ciphertext is read as it is, and each segment's
// plaintext is written out without its tag once the backend has checked it.
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"
#include "cipher/segments.hpp"
#include "io/cancellation.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace aesgpu {

class SegmentChunks {
public:
    // `chunk_bytes` asks for that much ciphertext per chunk: at least one segment.
    SegmentChunks(const SegmentGeometry &geometry, Direction direction, std::size_t chunk_bytes);

    [[nodiscard]] std::size_t slot_bytes() const { return segments_per_chunk_ * geometry_.segment_bytes; }
    [[nodiscard]] std::size_t segments_per_chunk() const { return segments_per_chunk_; }

    // Input bytes a chunk holds when it is full: a shorter read ends the stream.
    [[nodiscard]] std::size_t input_capacity(std::uint64_t chunk) const;

    // Reads chunk `chunk`'s input into `slot`; returns the input bytes read.
    std::size_t read(InputSource &source, std::span<std::byte> slot, std::uint64_t chunk,
                     const Cancellation *cancellation) const;

    // The job for chunk `chunk` of `length` input bytes, `final` when it ends the stream. Throws
    // FormatError for ciphertext with no segment at all, StreamCutShort for a last segment
    // shorter than its tag, TooManySegments before any segment would be numbered 2^32.
    [[nodiscard]] CipherJob job(std::size_t slot, std::uint64_t chunk, std::size_t length, bool final) const;

    // Writes the job's result from `slot`: all of it when encrypting, each segment's plaintext when
    // decrypting. Returns the bytes written.
    std::size_t write(OutputSink &sink, std::span<const std::byte> slot, const CipherJob &job) const;

private:
    SegmentGeometry geometry_;
    Direction direction_;
    std::size_t segments_per_chunk_;
};

// Decrypting a stream whose format was only guessed (format/detect's guess_mode): throws
// AuthenticationFailed unless segment 0, read from `source` where the stream's segments start and
// left there for the run (InputSource::peek), is authentic under `key` (the segment key, as `spec`
// goes with it). On the CPU: one segment, before the run sets up its backends or writes anything.
void authenticate_first_segment(InputSource &source, const SecretBytes &key, const CipherSpec &spec);

} // namespace aesgpu
