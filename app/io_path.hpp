// SPDX-License-Identifier: Apache-2.0
#pragma once
// --io auto|direct|buffered: whether a file's bytes go between the disk and the ring directly
// (O_DIRECT, past the page cache) or through the page cache, and why, for -v and --json.
#include "app/options.hpp"
#include "io/input_source.hpp"
#include "io/output_sink.hpp"
#include "job/io_choice.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace aesgpu {

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
// where `choice` and the files allow. Throws UsageError where --io direct cannot apply to what the
// files are (a pipe, a device), IoError where their file system refuses it.
// `chunk_bytes`: --chunk-size (0: the default, which is large enough).
IoPath choose_io_path(IoChoice choice, std::size_t chunk_bytes, InputSource &source, OutputSink *sink);

} // namespace aesgpu
