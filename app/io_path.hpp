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

// What the run's I/O choice (choose_direct_io) came to, for -v and --json. `writes`: false where
// nothing is written (-t, -P).
[[nodiscard]] IoPath describe_io_path(const DirectIoOutcome &outcome, const InputSource &source, bool writes);

// The DirectIoRefused being handled, in the command line's words: --io direct where a file cannot
// have it (a pipe, a device) is a UsageError; the file system's refusal stays an IoError.
[[noreturn]] void rethrow_direct_io_refusal();

} // namespace aesgpu
