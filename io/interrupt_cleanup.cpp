#include "io/interrupt_cleanup.hpp"

#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstring>

namespace aesgpu {

namespace {
// A fixed buffer and a lock-free flag: all a signal handler may safely read.
char armed_path[PATH_MAX + 1];
std::atomic<bool> armed{false};
static_assert(std::atomic<bool>::is_always_lock_free);

constexpr std::size_t kMaxScratchFiles = 4;
char scratch_directory[PATH_MAX + 1];
char scratch_files[kMaxScratchFiles][PATH_MAX + 1];
std::size_t scratch_file_count = 0;
std::atomic<bool> scratch_armed{false};
} // namespace

void arm_temporary_file(const std::string &path) noexcept {
    armed.store(false);
    if (path.size() >= sizeof armed_path) return; // cannot be created anyway
    std::memcpy(armed_path, path.c_str(), path.size() + 1);
    armed.store(true);
}

void disarm_temporary_file() noexcept {
    armed.store(false);
}

void arm_scratch_directory(const std::string &directory, std::initializer_list<const char *> names) noexcept {
    scratch_armed.store(false);
    if (directory.size() + 1 + NAME_MAX >= sizeof scratch_directory || names.size() > kMaxScratchFiles) return;
    std::memcpy(scratch_directory, directory.c_str(), directory.size() + 1);
    scratch_file_count = 0;
    for (const char *name : names) {
        const std::string path = directory + "/" + name;
        if (path.size() >= sizeof scratch_files[0]) return;
        std::memcpy(scratch_files[scratch_file_count++], path.c_str(), path.size() + 1);
    }
    scratch_armed.store(true);
}

void disarm_scratch_directory() noexcept {
    scratch_armed.store(false);
}

void remove_armed_temporary_file() noexcept {
    if (armed.load()) ::unlink(armed_path);
    if (scratch_armed.load()) {
        for (std::size_t i = 0; i < scratch_file_count; ++i) ::unlink(scratch_files[i]);
        ::rmdir(scratch_directory);
    }
}

} // namespace aesgpu
