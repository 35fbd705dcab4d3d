// SPDX-License-Identifier: Apache-2.0
#pragma once
// The bench's file stage works in a scratch directory beside the file it times, and times cp
// there as the baseline a shell user knows.
#include "common/interrupt_cleanup.hpp"

#include <filesystem>
#include <string>

namespace aesgpu {

// A private (0700) directory beside the benchmarked file, on the same file system, for the
// copies and outputs: no one else can plant anything under its names. Removed at the end, and by
// `interrupt_cleanups` on Ctrl-C.
class ScratchDirectory {
public:
    // Throws IoError.
    ScratchDirectory(const std::filesystem::path &parent, CleanupRegistry *interrupt_cleanups);
    ~ScratchDirectory();
    ScratchDirectory(const ScratchDirectory &) = delete;
    ScratchDirectory &operator=(const ScratchDirectory &) = delete;
    [[nodiscard]] std::string file(const char *name) const { return path_ + "/" + name; }

private:
    std::string path_;
    InterruptCleanup remove_on_interrupt_;
};

// Runs `cp --reflink=never -- from to` (never a clone: the baseline is a copy); Ctrl-C meanwhile
// stops cp too (through `interrupt_cleanups`). Throws std::runtime_error when cp cannot run or fails.
void run_cp(const std::string &from, const std::string &to, CleanupRegistry *interrupt_cleanups);

} // namespace aesgpu
