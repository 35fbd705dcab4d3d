// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a run ended by a signal must undo: every temporary output not yet in place, the scratch
// directory of `aesgpu bench --file`, a terminal whose echo a passphrase prompt turned off. Each
// is registered for as long as it exists; the signal-handling thread (app/interrupts.cpp) runs
// them all and ends the process. That thread is an ordinary thread (signals are taken with
// sigwait, never in a handler), so undo actions may lock, allocate and log.
#include <cstdint>
#include <functional>

namespace aesgpu {

class InterruptCleanup {
public:
    InterruptCleanup() = default;
    // Runs `create` and, when it returns true (it made something), registers `undo`, as one step
    // that the clean-up cannot split: whatever `create` made is undone however close behind it a
    // signal comes. Throws what `create` throws (and then registers nothing).
    static InterruptCleanup after(const std::function<bool()> &create, std::function<void()> undo);
    static InterruptCleanup register_undo(std::function<void()> undo) {
        return after([] { return true; }, std::move(undo));
    }

    InterruptCleanup(InterruptCleanup &&other) noexcept;
    InterruptCleanup &operator=(InterruptCleanup &&other) noexcept;
    InterruptCleanup(const InterruptCleanup &) = delete;
    InterruptCleanup &operator=(const InterruptCleanup &) = delete;
    ~InterruptCleanup() { release(); }

    // Unregisters the undo action without running it (what it would undo is gone or kept).
    void release() noexcept;
    [[nodiscard]] bool armed() const { return id_ != 0; }

private:
    explicit InterruptCleanup(std::uint64_t id) : id_(id) {}
    std::uint64_t id_ = 0;
};

// While it lives, Ctrl-Z (SIGTSTP) runs `before_stop` before aesgpu stops and `after_continue`
// when it continues (fg): a passphrase prompt gives the terminal its echo back while stopped and
// takes it again, as ssh's readpassphrase does. One at a time.
class StopHooks {
public:
    StopHooks(std::function<void()> before_stop, std::function<void()> after_continue);
    ~StopHooks();
    StopHooks(const StopHooks &) = delete;
    StopHooks &operator=(const StopHooks &) = delete;
};

// For the signal-handling thread: runs `stop` between the hooks of the StopHooks alive, if any.
void stop_with_hooks(const std::function<void()> &stop);

// Runs every registered undo action, newest first, and keeps the registry locked from then on, so
// that nothing new is created behind it: the caller ends the process next.
void run_interrupt_cleanups() noexcept;

} // namespace aesgpu
