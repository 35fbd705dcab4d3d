// SPDX-License-Identifier: Apache-2.0
#include "common/interrupt_cleanup.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace aesgpu {

namespace {

struct Registry {
    std::mutex mutex;
    std::uint64_t next_id = 1;
    std::map<std::uint64_t, std::function<void()>> undo; // by id: newest last
};

// Never destroyed: the signal thread may still use it while static destructors run at exit.
Registry &registry() {
    static auto *instance = new Registry;
    return *instance;
}

// The hooks of the one StopHooks alive (a prompt), guarded by stop_mutex().
std::mutex &stop_mutex() {
    static auto *mutex = new std::mutex; // never destroyed, as the registry
    return *mutex;
}
std::function<void()> before_stop;
std::function<void()> after_continue;

} // namespace

StopHooks::StopHooks(std::function<void()> before, std::function<void()> after) {
    std::lock_guard lock(stop_mutex());
    before_stop = std::move(before);
    after_continue = std::move(after);
}

StopHooks::~StopHooks() {
    std::lock_guard lock(stop_mutex());
    before_stop = nullptr;
    after_continue = nullptr;
}

void stop_with_hooks(const std::function<void()> &stop) {
    std::lock_guard lock(stop_mutex());
    if (before_stop) before_stop();
    stop();
    if (after_continue) after_continue();
}

InterruptCleanup InterruptCleanup::after(const std::function<bool()> &create, std::function<void()> undo) {
    Registry &r = registry();
    std::lock_guard lock(r.mutex);
    if (!create()) return {};
    const std::uint64_t id = r.next_id++;
    r.undo.emplace(id, std::move(undo));
    return InterruptCleanup(id);
}

InterruptCleanup::InterruptCleanup(InterruptCleanup &&other) noexcept : id_(std::exchange(other.id_, 0)) {}

InterruptCleanup &InterruptCleanup::operator=(InterruptCleanup &&other) noexcept {
    if (this != &other) {
        release();
        id_ = std::exchange(other.id_, 0);
    }
    return *this;
}

void InterruptCleanup::release() noexcept {
    if (id_ == 0) return;
    Registry &r = registry();
    std::lock_guard lock(r.mutex);
    r.undo.erase(std::exchange(id_, 0));
}

void run_interrupt_cleanups() noexcept {
    Registry &r = registry();
    r.mutex.lock(); // never unlocked: the process ends next
    for (auto it = r.undo.rbegin(); it != r.undo.rend(); ++it) {
        try {
            it->second();
        } catch (...) {
            // One failed undo must not keep the others from running.
        }
    }
    r.undo.clear();
}

} // namespace aesgpu
