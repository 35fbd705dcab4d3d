// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every test program replaces the global operator new and delete (support/allocation_hooks.cpp)
// with malloc and free plus two hooks: an allocation made to fail on purpose, to test that code
// survives std::bad_alloc at every point, and a look at each buffer as it is freed, to test that
// key material is wiped before it goes back to the allocator.
#include <cstddef>

namespace aesgpu::test {

// The next `successes` allocations on this thread succeed and the one after throws
// std::bad_alloc, once. A negative count disarms it.
void fail_allocation_after(int successes) noexcept;
// True while the armed failure has not fired yet.
[[nodiscard]] bool allocation_failure_armed() noexcept;

// Called with each pointer about to be freed (on any thread), until set to nullptr.
using FreeWatcher = void (*)(const void *pointer) noexcept;
void watch_frees(FreeWatcher watcher) noexcept;

// Makes the allocation after `successes` more on this thread fail, for as long as it lives.
class FailingAllocation {
public:
    explicit FailingAllocation(int successes) noexcept { fail_allocation_after(successes); }
    ~FailingAllocation() { fail_allocation_after(-1); }
    FailingAllocation(const FailingAllocation &) = delete;
    FailingAllocation &operator=(const FailingAllocation &) = delete;
    // True once the failure has fired.
    [[nodiscard]] bool reached() const noexcept { return !allocation_failure_armed(); }
};

// Calls step(0), step(1), ... as long as `step` says (by returning true) that its run reached
// the failing allocation: so every allocation of the code under test fails once, in turn.
template <typename Step>
void at_every_allocation(Step &&step, int limit = 500) {
    for (int successes = 0; successes < limit && step(successes); ++successes) {
    }
}

} // namespace aesgpu::test
