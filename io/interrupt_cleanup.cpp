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

void remove_armed_temporary_file() noexcept {
    if (armed.load()) ::unlink(armed_path);
}

} // namespace aesgpu
