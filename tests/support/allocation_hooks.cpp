// SPDX-License-Identifier: Apache-2.0
#include "support/allocation_hooks.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace aesgpu::test {

namespace {
thread_local int successes_left = -1;
std::atomic<FreeWatcher> free_watcher{nullptr};

void about_to_free(void *pointer) noexcept {
    if (const FreeWatcher watcher = free_watcher.load(); watcher && pointer) watcher(pointer);
}
} // namespace

void fail_allocation_after(int successes) noexcept {
    successes_left = successes;
}

bool allocation_failure_armed() noexcept {
    return successes_left >= 0;
}

void watch_frees(FreeWatcher watcher) noexcept {
    free_watcher = watcher;
}

} // namespace aesgpu::test

void *operator new(std::size_t bytes) {
    using aesgpu::test::successes_left;
    if (successes_left >= 0 && successes_left-- == 0) throw std::bad_alloc();
    if (void *pointer = std::malloc(bytes ? bytes : 1)) return pointer;
    throw std::bad_alloc();
}
void operator delete(void *pointer) noexcept {
    aesgpu::test::about_to_free(pointer);
    std::free(pointer);
}
void operator delete(void *pointer, std::size_t) noexcept {
    aesgpu::test::about_to_free(pointer);
    std::free(pointer);
}
