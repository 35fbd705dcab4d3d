#include "common/worker_pool.hpp"

#include "common/threads.hpp"

#include <algorithm>
#include <utility>

namespace aesgpu {

unsigned default_io_threads() {
    const unsigned hardware = std::thread::hardware_concurrency();
    return hardware < 8 ? 1u : std::min(hardware / 2, 8u);
}

WorkerPool::WorkerPool(unsigned threads, const char *purpose) {
    const unsigned workers = std::max(threads, 1u) - 1;
    workers_.reserve(workers);
    try {
        for (unsigned i = 0; i < workers; ++i) workers_.push_back(start_thread(purpose, [this] { work(); }));
    } catch (...) {
        stop(); // join the threads already started before the exception leaves
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

void WorkerPool::run(std::size_t count, const std::function<void(std::size_t)> &task) {
    if (count == 0) return;
    std::unique_lock lock(mutex_);
    task_ = &task;
    count_ = count;
    next_ = 0;
    error_ = nullptr;
    if (count > 1) work_ready_.notify_all();
    run_tasks(lock);
    all_done_.wait(lock, [&] { return next_ == count_ && running_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void WorkerPool::run_pieces(std::size_t bytes, const std::function<void(std::size_t, std::size_t)> &piece) {
    constexpr std::size_t page = 4096;
    const std::size_t share = (bytes / threads() + page - 1) / page * page;
    const std::size_t length = std::max(kMinPieceBytes, share);
    const std::size_t count = (bytes + length - 1) / length;
    run(count, [&](std::size_t index) {
        const std::size_t offset = index * length;
        piece(offset, std::min(length, bytes - offset));
    });
}

// Takes tasks until none is left; called with the lock held, runs each task without it.
void WorkerPool::run_tasks(std::unique_lock<std::mutex> &lock) {
    while (task_ && next_ < count_) {
        const std::size_t index = next_++;
        ++running_;
        lock.unlock();
        std::exception_ptr error;
        try {
            (*task_)(index);
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        if (error && !error_) error_ = error;
        if (--running_ == 0 && next_ == count_) all_done_.notify_all();
    }
}

void WorkerPool::work() {
    std::unique_lock lock(mutex_);
    for (;;) {
        work_ready_.wait(lock, [&] { return stopping_ || (task_ && next_ < count_); });
        if (stopping_) return;
        run_tasks(lock);
    }
}

} // namespace aesgpu
