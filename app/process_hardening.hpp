#pragma once
// What main() does before anything else, so that a hostile or careless environment cannot turn
// aesgpu against its own data or secrets.
namespace aesgpu {

// Makes sure descriptors 0, 1 and 2 are open. Where one is closed, /dev/null takes its place,
// opened the wrong way round (standard input for writing, standard output and error for reading),
// as gnulib's stdopen does: nothing aesgpu opens later can land on 0, 1 or 2 and receive log text
// or be taken for the data, and using a closed standard stream fails instead of going nowhere.
// Returns false when even /dev/null cannot be opened.
bool open_standard_descriptors() noexcept;

// No core dump, and no ptrace or /proc/PID/mem access by other processes of the same user, for
// the whole run: keys and passphrases live in this process's memory.
void keep_memory_private() noexcept;

} // namespace aesgpu
