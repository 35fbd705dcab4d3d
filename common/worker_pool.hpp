// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one thread pool: the CPU cipher posts the pieces of a job to it and returns at once
// (post), and file reads and writes split one large copy across it and wait (run_pieces).
#include "common/note_sink.hpp"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace aesgpu {

// How a range of bytes is cut for a pool: about one piece per thread, each at least
// `min_piece_bytes` (below that a hand-off costs more than it saves) and a multiple of
// `alignment` (but the last).
struct PieceShape {
    std::size_t min_piece_bytes;
    std::size_t alignment;
};

// The length of every piece but the last when `bytes` is cut for `threads` threads.
[[nodiscard]] std::size_t piece_length(std::size_t bytes, unsigned threads, PieceShape shape);

// What a pool does when the system refuses it a thread (ulimit -u, or -v leaving no room for a
// stack): fail, for work that was promised every thread (the CPU cipher's -T), or go on with the
// threads it has, for work that more threads only speed up (split file reads and writes).
enum class ThreadShortfall { fail, make_do };

class WorkerPool {
public:
    // `threads` counts the thread that calls run(), so the pool starts threads - 1 workers.
    // Throws ThreadLimit, naming `purpose`, when a thread cannot start and `shortfall` is fail;
    // with make_do it tells `notes` (at info level) and runs on the threads it started (the
    // caller's at least).
    WorkerPool(unsigned threads, const std::string &purpose, ThreadShortfall shortfall = ThreadShortfall::fail,
               NoteSink *notes = nullptr);
    // Runs the tasks still queued, then joins the workers.
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    [[nodiscard]] unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

    // Queues `task` and returns; a worker calls it with its number, 1 .. threads() - 1 (0 is left
    // for the caller's own share, so per-thread state can be indexed by it). With no workers the
    // task runs here, with 0. A task must not throw: it reports its failure itself.
    void post(std::function<void(unsigned worker)> task);

    // Calls task(0) .. task(count - 1) across the workers and the calling thread, and returns
    // when all have ended; rethrows the first exception a task threw.
    void run(std::size_t count, const std::function<void(std::size_t)> &task);

    // Cuts [0, bytes) as `shape` says and runs piece(offset, length) for each piece, as run().
    void run_pieces(std::size_t bytes, PieceShape shape, const std::function<void(std::size_t, std::size_t)> &piece);

private:
    void work(unsigned worker);
    void stop() noexcept;

    std::mutex mutex_;
    std::condition_variable work_ready_;
    std::deque<std::function<void(unsigned)>> queue_;
    bool stopping_ = false;
    std::vector<std::thread> workers_;
};

} // namespace aesgpu
