// SPDX-License-Identifier: Apache-2.0
#pragma once
// A small closable multi-producer/multi-consumer queue for handing work between pipeline threads.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace aesgpu {

template <typename T>
class Channel {
public:
    // Returns false when the channel is closed (the value is dropped).
    bool push(T value) {
        {
            std::lock_guard lock(mutex_);
            if (closed_) return false;
            items_.push_back(std::move(value));
        }
        ready_.notify_one();
        return true;
    }

    // Blocks for the next value; nothing once the channel is closed and drained.
    std::optional<T> pop() {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return closed_ || !items_.empty(); });
        if (items_.empty()) return std::nullopt;
        T value = std::move(items_.front());
        items_.pop_front();
        return value;
    }

    // Wakes every waiter; values already queued can still be popped.
    void close() {
        {
            std::lock_guard lock(mutex_);
            closed_ = true;
        }
        ready_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<T> items_;
    bool closed_ = false;
};

} // namespace aesgpu
