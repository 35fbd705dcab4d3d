// SPDX-License-Identifier: Apache-2.0
#pragma once
// Whether a file's bytes go between the disk and the ring directly (O_DIRECT, past the page cache)
// or through the page cache: tried where it pays, and why not elsewhere, as values a caller words.
#include "io/input_source.hpp"
#include "io/output_sink.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace aesgpu {

// automatic: directly where it pays (below); direct: wherever the files allow, asked for.
enum class IoChoice { automatic, direct, buffered };

// Below this an input is read through the page cache under `automatic`: a direct run's fixed costs
// (threads, a second descriptor, the fsync it always does) are not worth it. Provisional until the
// direct path is measured on the GPU hosts' disk (docs/performance.md).
inline constexpr std::uint64_t kDirectIoMinBytes = std::uint64_t{64} << 20;

// Below this, a chunk asked for keeps `automatic` on the page cache: each chunk's direct requests
// wait for each other, and a chunk that starts or ends inside a page (a header, GCM's tags, a size
// off the 4 KiB grid) reads that page again with its neighbour. A 16-byte chunk read 256 times
// the file, 4112 bytes twice; from 1 MiB on it is under 1% more.
inline constexpr std::size_t kDirectIoMinChunkBytes = std::size_t{1} << 20;

// Why `automatic` left both sides on the page cache before trying.
enum class StaysBuffered {
    asked,             // IoChoice::buffered
    not_regular_files, // a pipe, device or standard stream
    small_file,        // under kDirectIoMinBytes
    small_chunk,       // a chunk asked for under kDirectIoMinChunkBytes
    input_cached,      // the input is mostly in the page cache already
};

struct DirectIoOutcome {
    std::optional<StaysBuffered> stays_buffered;
    std::optional<std::string> reads_refused;  // the file system's refusal: reads went buffered
    std::optional<std::string> writes_refused; // the same for writes, with reads direct
    bool reads_direct = false;
    bool writes_direct = false;
    bool cache_unseen = false; // automatic could not see whether the input is cached
};

// Sets `source` and `sink` (nullptr: nothing is written) reading and writing directly as `choice`
// says. `chunk_bytes`: the chunk asked for (0: the default, which is large enough). With `direct`
// nothing is checked first: a caller refuses files that are not regular before. Throws nothing
// of its own.
[[nodiscard]] DirectIoOutcome choose_direct_io(IoChoice choice, std::size_t chunk_bytes, InputSource &source,
                                               OutputSink *sink);

} // namespace aesgpu
