// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a run ended by a signal must undo: every temporary output not yet in place, the scratch
// directory of `aesgpu bench --file`, a terminal whose echo a passphrase prompt turned off. The
// program owns the registry and decides when it runs: aesgpu's app keeps one for the process,
// which its signal thread runs before the process dies (app/interrupts.cpp). Library code
// registers into the registry it is given, or into none (then nothing is undone on a signal).
// The registry runs on an ordinary thread (signals taken with sigwait, never in a handler), so
// undo actions may lock, allocate and log.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace aesgpu {

class CleanupRegistry {
public:
    CleanupRegistry() = default;
    CleanupRegistry(const CleanupRegistry &) = delete;
    CleanupRegistry &operator=(const CleanupRegistry &) = delete;

    // Runs every registered undo action, newest first, and keeps the registry locked from then
    // on, so that nothing new is created behind it: the caller ends the process next.
    void run_all() noexcept;

private:
    friend class InterruptCleanup;
    std::mutex mutex_;
    std::uint64_t next_id_ = 1;
    std::map<std::uint64_t, std::function<void()>> undo_; // by id: newest last
};

class InterruptCleanup {
public:
    InterruptCleanup() = default;
    // Runs `create` and, when it returns true (it made something), registers `undo` in `registry`,
    // as one step that the clean-up cannot split: whatever `create` made is undone however close
    // behind it a signal comes. With no registry, runs `create` alone. Throws what `create`
    // throws (and then registers nothing).
    static InterruptCleanup after(CleanupRegistry *registry, const std::function<bool()> &create,
                                  std::function<void()> undo);
    static InterruptCleanup register_undo(CleanupRegistry *registry, std::function<void()> undo) {
        return after(
            registry, [] { return true; }, std::move(undo));
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
    InterruptCleanup(CleanupRegistry *registry, std::uint64_t id) : registry_(registry), id_(id) {}
    CleanupRegistry *registry_ = nullptr;
    std::uint64_t id_ = 0;
};

} // namespace aesgpu
