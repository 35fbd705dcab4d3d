// SPDX-License-Identifier: Apache-2.0
#pragma once
// What main() does before anything else, so that a hostile or careless environment cannot turn
// aesgpu against its own data or secrets.
namespace aesgpu {

// Makes sure descriptors 0, 1 and 2 are open, so that nothing aesgpu opens later can land on
// them and receive log text or be taken for the data. Where one is closed, "/" opened with O_PATH
// takes its place: reading or writing it fails (EBADF), and so does opening it again by name
// (/dev/stdout: "is a directory"), so a closed standard stream is an error, never a silent
// /dev/null. Returns false when even that cannot be opened.
bool open_standard_descriptors() noexcept;

// No core dump, and no ptrace or /proc/PID/mem access by other processes of the same user, for
// the whole run: keys and passphrases live in this process's memory.
void keep_memory_private() noexcept;

} // namespace aesgpu
