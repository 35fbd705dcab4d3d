// SPDX-License-Identifier: Apache-2.0
#pragma once
// Whether a file's bytes go between the disk and the ring directly (O_DIRECT, past the page cache)
// or through the page cache: tried where it pays, and why not elsewhere, as values a caller words.
#include "common/errors.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"

#include <aesgpu/types.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace aesgpu {

// IoChoice (<aesgpu/types.hpp>): automatic, directly where it pays (below); direct, asked for.

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

// IoChoice::direct where a file cannot have it: a pipe or device (no `refusal`), or a file system
// that refuses O_DIRECT (`refusal` says why). The caller may word it again from the fields.
class DirectIoRefused : public IoError {
public:
    DirectIoRefused(bool writing, const std::string &name, std::optional<std::string> refusal);
    bool writing;                       // the output's side
    std::string name;                   // the file's display name
    std::optional<std::string> refusal; // the file system's words
};

// Sets `source` and `sink` (nullptr: nothing is written) reading and writing directly as `choice`
// says. `chunk_bytes`: the chunk asked for (0: the default, which is large enough). Throws
// DirectIoRefused under `direct` only: `automatic` says in the outcome why it stayed buffered.
[[nodiscard]] DirectIoOutcome choose_direct_io(IoChoice choice, std::size_t chunk_bytes, InputSource &source,
                                               OutputSink *sink);

} // namespace aesgpu
