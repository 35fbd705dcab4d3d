#pragma once
// What a run killed by a signal must undo: the temporary output file not yet renamed into place.
// The output sink arms it; a signal handler (app/) removes it with remove_armed_temporary_file(),
// which is async-signal-safe.
#include <string>

namespace aesgpu {

// Remembers `path` (copied) as the file to remove if the process is interrupted.
void arm_temporary_file(const std::string &path) noexcept;
void disarm_temporary_file() noexcept;
// unlink()s the armed file, if any. Async-signal-safe.
void remove_armed_temporary_file() noexcept;

} // namespace aesgpu
