// SPDX-License-Identifier: Apache-2.0
#pragma once
// --io auto|direct|buffered: whether a file's bytes go between the disk and the ring directly
// (O_DIRECT, past the page cache) or through the page cache, and why, for -v and --json.
#include "app/options.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace aesgpu {

// Below this an input is read through the page cache under --io auto: a direct run's fixed costs
// (threads, a second descriptor, the fsync it always does) are not worth it. Provisional until the
// direct path is measured on the GPU hosts' disk (bench/NOTES.md).
inline constexpr std::uint64_t kDirectIoMinBytes = std::uint64_t{64} << 20;

// Why --io direct cannot take a passphrase's or GCM's file yet (a usage error).
inline constexpr const char *kDirectIoShiftRefusal =
    "--io direct covers ECB and CTR with a raw key (-K, --key-file) so far: a passphrase's Salted__ header and "
    "GCM's header and tags shift the output against the input; use --io buffered or auto";

inline constexpr const char *kDirectIoChunkRefusal =
    "--io direct needs a --chunk-size that is a multiple of 4 KiB: direct reads and writes start where chunks do";

// Whether chunks of `chunk_bytes` (0: the default) start where direct reads and writes may: a
// multiple of the page size, which every file system's direct-I/O alignment divides.
[[nodiscard]] bool chunk_suits_direct_io(std::size_t chunk_bytes);

struct IoPath {
    bool reads_direct = false;
    bool writes_direct = false;
    bool writes = true; // false: nothing is written (-t)
    std::string reason; // why each side went as it did, for -v
    std::string engine; // what keeps the direct requests in flight: "io_uring", "threads" ("": none)
    [[nodiscard]] std::string name() const {
        if (reads_direct && (writes_direct || !writes)) return "direct";
        return reads_direct || writes_direct ? "mixed" : "buffered";
    }
};

// With --io direct, every input named and the output must be regular files (or not exist yet):
// checked for the whole run before any work, and before a FIFO's open() could wait for its other
// end. Throws UsageError.
void check_direct_io_targets(const CipherOptions &options, const std::vector<std::string> &inputs);

// Sets `source` and `sink` (nullptr: nothing is written, -t or -P) reading and writing directly
// where `choice` and the files allow. `shifted`: a header (a passphrase's Salted__, GCM's stream
// header and tags) moves the output against the input, which the direct path does not take yet.
// Throws UsageError where --io direct cannot apply to what the files are (a pipe, a device, a
// shifted format), IoError where their file system refuses it.
// `chunk_bytes`: --chunk-size (0: the default, a multiple of every alignment).
IoPath choose_io_path(IoChoice choice, bool shifted, std::size_t chunk_bytes, InputSource &source, OutputSink *sink);

} // namespace aesgpu
