// SPDX-License-Identifier: Apache-2.0
#pragma once
// The streaming pipeline: a reader thread fills ring slots from the input and submits them to the
// cipher backend; the calling thread waits for each slot in order, writes it out and hands it
// back. Reading, ciphering and writing overlap, and memory stays at ring_slots x chunk_bytes
// whatever the input size.
#include "cipher/cipher_backend.hpp"
#include "cipher/framing.hpp"
#include "cipher/segments.hpp"
#include "common/errors.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace aesgpu {

// Regular files are read in big chunks: fewer system calls, and the cipher gets big jobs.
inline constexpr std::size_t kFileChunkBytes = std::size_t{4} << 20;
// Pipes deliver at most a pipe buffer (1 MiB once enlarged) per read; a chunk of that size moves
// on as soon as it arrives instead of stalling the next stage while a bigger one fills.
inline constexpr std::size_t kStreamChunkBytes = std::size_t{1} << 20;
// Two slots suffice: the writer frees one while the reader holds the other (read ahead).
inline constexpr std::size_t kMinRingSlots = 2;
// The largest chunk --chunk-size takes: a few of them are the memory a run uses.
inline constexpr std::size_t kMaxChunkBytes = std::size_t{1} << 30;
// When the backend cannot allocate the ring, the chunk is halved down to this before giving up.
inline constexpr std::size_t kMinRetryChunkBytes = std::size_t{64} << 10;
// Under a control group's memory limit the ring takes at most this share of it (a quarter): the
// rest is for the process itself (libraries, threads' stacks, the page cache its files fill).
inline constexpr std::uint64_t kRingShareOfMemoryLimit = 4;
// Below this limit the files' page cache is kept small too: what was read leaves it, and the output
// is written behind (OutputSink::write_behind) in windows of a sixteenth of the limit. On the
// two-H100 host (32 cores, virtio disk), a 256 MiB file without that was killed in groups of 16, 32
// and once 64 MiB (dirty pages came faster than the disk took them), and in none from 128 MiB up;
// above this limit the kernel's own dirty throttling is left to it, and mapped writes stay.
inline constexpr std::uint64_t kTightMemoryLimit = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kWriteBehindShareOfMemoryLimit = 16;

struct PipelineOptions {
    Direction direction = Direction::encrypt;
    Framing framing = Framing::pkcs7;
    std::size_t chunk_bytes = kFileChunkBytes; // a positive multiple of 16
    std::size_t ring_slots = 8;                // at least kMinRingSlots
    // Called on the calling thread after each chunk is written, with the input bytes done so far.
    std::function<void(std::uint64_t)> on_progress = {};
    // An authenticated stream's segments (GCM): chunks of whole segments instead of blocks
    // (engine/segment_chunks.hpp); `framing` is then not used.
    std::optional<SegmentGeometry> segments = std::nullopt;
    // A control group's memory limit (0: none), which the OOM killer enforces before any
    // allocation fails, so the retry with smaller chunks would come too late: the first ring
    // takes at most kRingShareOfMemoryLimit of it. The chunk is halved (down to
    // kMinRetryChunkBytes or one segment), then slots go, down to kMinRingSlots + 1; a ring
    // that even then is larger than the whole limit is refused (ResourceExhausted) before any
    // of it is touched.
    std::uint64_t memory_limit = 0;
};

struct PipelineStats {
    std::uint64_t bytes_read = 0;
    std::uint64_t bytes_written = 0;
    // Handed to the backend: padding and a partial last block's fill included, a header not (GCM:
    // the segments' ciphertext). What a dispatcher's lanes report together.
    std::uint64_t bytes_ciphered = 0;
    double seconds = 0;
    std::size_t chunk_bytes = 0; // the chunk size used: smaller than asked if memory was short
    std::size_t ring_slots = 0;  // the slots used: fewer than asked where a memory limit took some
    // Direct I/O with a header, tags or a chunk off the page grid, where the out-of-place ring
    // (twice the memory) did not fit: the ring went in place, and the chunks' unaligned ends went
    // through the page cache.
    bool went_in_place = false;
};

// Encrypting without padding (Framing::whole_blocks), an input that is not whole 16-byte blocks.
class NotWholeBlocks : public FormatError {
public:
    explicit NotWholeBlocks(std::uint64_t input_length)
        : FormatError("input length " + std::to_string(input_length) +
                      " is not a multiple of 16 bytes, which encrypting without padding (no_pad) requires"),
          length(input_length) {}
    std::uint64_t length;
};

// Throws FormatError (NotWholeBlocks) when a stream of `length` bytes cannot be ciphered whole: not whole blocks
// where padding cannot fix that (no_pad, or decrypting with padding), or padded ciphertext that
// is empty. run_pipeline checks this at the end of the stream; a caller that knows the length can
// check first.
void check_stream_length(Direction direction, Framing framing, std::uint64_t length);

// The most output bytes `input_bytes` of input can give (a header aside): padding, or tags.
[[nodiscard]] std::uint64_t max_output_bytes(const PipelineOptions &options, std::uint64_t input_bytes);

// Streams `source` through `backend` into `sink`. Does not commit the sink. The ring is first cut
// to fit options.memory_limit; if the backend cannot allocate it (ResourceExhausted), it is
// retried with half the chunk size, down to kMinRetryChunkBytes. Throws IoError, FormatError (ragged length, bad
// padding) or whatever the backend throws; all threads are joined and all backend jobs finished before it returns or
// throws.
PipelineStats run_pipeline(InputSource &source, OutputSink &sink, CipherBackend &backend,
                           const PipelineOptions &options);

} // namespace aesgpu
