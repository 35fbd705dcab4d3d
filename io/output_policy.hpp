// SPDX-License-Identifier: Apache-2.0
#pragma once
// How OutputSink::create() may treat the name it is given: what it may replace, what the new file
// takes from the input, how it is written, and where its temporary file registers its removal.
#include "common/interrupt_cleanup.hpp"

#include <sys/stat.h>

namespace aesgpu {

struct OutputPolicy {
    bool overwrite = false; // replace an existing regular file (-f)
    // The input, when there is one: refused as the output even with overwrite; when it is a regular
    // file, a new output gets its permission bits, group and times, as gzip does (without the
    // group's bits where the process may not set the group).
    const struct stat *input_status = nullptr;
    unsigned io_threads = 1; // > 1: large writes to a file may be split (mapped)
    // false: a hidden named file even where O_TMPFILE works (tests of that fallback use it).
    bool unnamed_temporary = true;
    // Where a named temporary file registers its removal, for a program that ends itself on a
    // signal (none: a process killed mid-run may leave it where the kernel gives no O_TMPFILE).
    // Must outlive the sink.
    CleanupRegistry *interrupt_cleanups = nullptr;
};

} // namespace aesgpu
