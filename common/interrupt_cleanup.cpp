// SPDX-License-Identifier: Apache-2.0
#include "common/interrupt_cleanup.hpp"

#include <utility>

namespace aesgpu {

InterruptCleanup InterruptCleanup::after(CleanupRegistry *registry, const std::function<bool()> &create,
                                         std::function<void()> undo) {
    if (!registry) {
        (void)create();
        return {};
    }
    std::lock_guard lock(registry->mutex_);
    if (!create()) return {};
    const std::uint64_t id = registry->next_id_++;
    registry->undo_.emplace(id, std::move(undo));
    return InterruptCleanup(registry, id);
}

InterruptCleanup::InterruptCleanup(InterruptCleanup &&other) noexcept
    : registry_(std::exchange(other.registry_, nullptr)), id_(std::exchange(other.id_, 0)) {}

InterruptCleanup &InterruptCleanup::operator=(InterruptCleanup &&other) noexcept {
    if (this != &other) {
        release();
        registry_ = std::exchange(other.registry_, nullptr);
        id_ = std::exchange(other.id_, 0);
    }
    return *this;
}

void InterruptCleanup::release() noexcept {
    if (id_ == 0) return;
    std::lock_guard lock(registry_->mutex_);
    registry_->undo_.erase(std::exchange(id_, 0));
}

void CleanupRegistry::run_all() noexcept {
    mutex_.lock(); // never unlocked: the process ends next
    for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
        try {
            it->second();
        } catch (...) {
            // One failed undo must not keep the others from running.
        }
    }
    undo_.clear();
}

} // namespace aesgpu
