#pragma once
// The streaming pipeline: a reader thread fills ring slots from the input and submits them to the
// cipher backend; the calling thread waits for each slot in order, writes it out and hands it
// back. Reading, ciphering and writing overlap, and memory stays at ring_slots x chunk_bytes
// whatever the input size.
#include "io/cipher_backend.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"

#include <cstddef>
#include <cstdint>

namespace aesgpu {

inline constexpr std::size_t kDefaultChunkBytes = std::size_t{4} << 20;
inline constexpr std::size_t kMinRingSlots = 3; // one being read ahead, one in the cipher, one being written

struct PipelineOptions {
    Direction direction = Direction::encrypt;
    bool pkcs7_padding = true;                    // false: --no-pad, whole blocks only
    std::size_t chunk_bytes = kDefaultChunkBytes; // a positive multiple of 16
    std::size_t ring_slots = 8;                   // at least kMinRingSlots
};

struct PipelineStats {
    std::uint64_t bytes_read = 0;
    std::uint64_t bytes_written = 0;
    double seconds = 0;
};

// Streams `source` through `backend` into `sink`. Does not commit the sink. Throws IoError,
// FormatError (ragged length, bad padding) or whatever the backend throws; all threads are
// joined and all backend jobs finished before it returns or throws.
PipelineStats run_pipeline(InputSource &source, OutputSink &sink, CipherBackend &backend,
                           const PipelineOptions &options);

} // namespace aesgpu
