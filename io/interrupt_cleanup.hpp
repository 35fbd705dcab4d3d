#pragma once
// What a run killed by a signal must undo: the temporary output file not yet renamed into place,
// and the scratch directory of `aesgpu bench --file`. The output sink and the bench arm them; a
// signal handler (app/) removes them with remove_armed_temporary_file(), which is
// async-signal-safe.
#include <initializer_list>
#include <string>

namespace aesgpu {

// Remembers `path` (copied) as the file to remove if the process is interrupted.
void arm_temporary_file(const std::string &path) noexcept;
void disarm_temporary_file() noexcept;
// Remembers `directory` and the names of the files it may hold (at most 4), to be removed with it.
void arm_scratch_directory(const std::string &directory, std::initializer_list<const char *> names) noexcept;
void disarm_scratch_directory() noexcept;
// unlink()s the armed file, then the scratch directory's files and rmdir()s it. Async-signal-safe.
void remove_armed_temporary_file() noexcept;

} // namespace aesgpu
