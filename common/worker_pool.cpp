// SPDX-License-Identifier: Apache-2.0
#include "common/worker_pool.hpp"

#include "common/threads.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <new>
#include <string>
#include <utility>

namespace aesgpu {

std::size_t piece_length(std::size_t bytes, unsigned threads, PieceShape shape) {
    const std::size_t share = (bytes / std::max(threads, 1u) + shape.alignment - 1) / shape.alignment * shape.alignment;
    return std::max(shape.min_piece_bytes, share);
}

WorkerPool::WorkerPool(unsigned threads, const std::string &purpose, ThreadShortfall shortfall, NoteSink *notes) {
    const unsigned workers = std::max(threads, 1u) - 1;
    workers_.reserve(workers);
    try {
        for (unsigned i = 1; i <= workers; ++i) workers_.push_back(start_thread(purpose, [this, i] { work(i); }));
    } catch (const std::exception &e) {
        // Short of address space, a refusal can come as bad_alloc (the thread's own state, or the
        // message of its error) rather than as ThreadLimit.
        const bool out_of_memory = dynamic_cast<const std::bad_alloc *>(&e) != nullptr;
        if (shortfall == ThreadShortfall::make_do && (out_of_memory || dynamic_cast<const ThreadLimit *>(&e))) {
            const unsigned asked = std::max(threads, 1u);
            try {
                const std::string why = out_of_memory ? "cannot start a thread for " + purpose + ": not enough memory"
                                                      : std::string(e.what());
                note_to(notes, NoteLevel::info,
                        why + "; going on with " + std::to_string(this->threads()) + " of " + std::to_string(asked) +
                            " threads");
            } catch (const std::bad_alloc &) {
                // No memory left to word it: the pool goes on all the same, unannounced.
            }
            return;
        }
        stop(); // join the threads already started before the exception leaves
        throw;
    } catch (...) {
        stop();
        throw;
    }
}

WorkerPool::~WorkerPool() {
    stop();
}

void WorkerPool::stop() noexcept {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto &worker : workers_) worker.join();
    workers_.clear();
}

void WorkerPool::post(std::function<void(unsigned)> task) {
    if (workers_.empty()) {
        task(0);
        return;
    }
    {
        std::lock_guard lock(mutex_);
        queue_.push_back(std::move(task));
    }
    work_ready_.notify_one();
}

void WorkerPool::work(unsigned worker) {
    for (;;) {
        std::function<void(unsigned)> task;
        {
            std::unique_lock lock(mutex_);
            work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return; // stopping, and nothing left to run
            task = std::move(queue_.front());
            queue_.pop_front();
        }
        task(worker);
    }
}

void WorkerPool::run(std::size_t count, const std::function<void(std::size_t)> &task) {
    if (count == 0) return;
    // Helpers and the caller take indices from one counter until none is left; the caller then
    // waits for every helper to leave, since they use this frame.
    struct Shared {
        std::atomic<std::size_t> next{0};
        std::mutex mutex;
        std::condition_variable helpers_done;
        std::size_t helpers_left = 0;
        std::exception_ptr error;
    } shared;
    const auto take_tasks = [&] {
        for (std::size_t index; (index = shared.next.fetch_add(1)) < count;) {
            try {
                task(index);
            } catch (...) {
                std::lock_guard lock(shared.mutex);
                if (!shared.error) shared.error = std::current_exception();
            }
        }
    };
    const std::size_t helpers = std::min<std::size_t>(workers_.size(), count - 1);
    for (std::size_t i = 0; i < helpers; ++i) {
        {
            std::lock_guard lock(shared.mutex);
            ++shared.helpers_left;
        }
        try {
            post([&](unsigned) {
                take_tasks();
                std::lock_guard lock(shared.mutex);
                if (--shared.helpers_left == 0) shared.helpers_done.notify_all();
            });
        } catch (const std::bad_alloc &) {
            // No memory to queue another helper: the ones posted and this thread do the rest.
            std::lock_guard lock(shared.mutex);
            --shared.helpers_left;
            break;
        }
    }
    take_tasks();
    std::unique_lock lock(shared.mutex);
    shared.helpers_done.wait(lock, [&] { return shared.helpers_left == 0; });
    if (shared.error) std::rethrow_exception(shared.error);
}

void WorkerPool::run_pieces(std::size_t bytes, PieceShape shape,
                            const std::function<void(std::size_t, std::size_t)> &piece) {
    const std::size_t length = piece_length(bytes, threads(), shape);
    run((bytes + length - 1) / length, [&](std::size_t index) {
        const std::size_t offset = index * length;
        piece(offset, std::min(length, bytes - offset));
    });
}

} // namespace aesgpu
