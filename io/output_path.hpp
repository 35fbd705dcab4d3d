// SPDX-License-Identifier: Apache-2.0
#pragma once
// What an output's name stands for before anything is written there: the file at that name (a
// symbolic link itself, never what it points to), or nothing yet.
#include <sys/stat.h>

#include <filesystem>
#include <string>

namespace aesgpu {

struct OutputPath {
    std::filesystem::path path; // where a new file goes, or the file it replaces
    bool exists = false;
    struct stat status {}; // of what is there: a link's own, for a link
    bool is_link = false;  // a symbolic link, which the output replaces as any file
};

// Looks at `given` without following a link, but for the system's streams (below), which are
// followed to what they stand for. Throws IoError where the name cannot be looked at.
[[nodiscard]] OutputPath resolve_output_path(const std::string &given);

// Names that stand for a stream of this process or the system's, whose symbolic links are there to
// be written through: /dev/stdout and /dev/stderr (links in /dev itself, which only root writes),
// /dev/fd/N and /proc/self/fd/N (procfs). Not /dev/shm or /dev/mqueue: anyone may make links there.
[[nodiscard]] bool names_a_system_stream(const std::string &given);

} // namespace aesgpu
