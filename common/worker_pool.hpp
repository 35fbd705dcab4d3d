#pragma once
// A small fork-join pool for splitting one large copy (a read or a write of a chunk) across
// threads. One copy into tmpfs or out of the page cache runs at a few GB/s per thread, well
// below what memory and the GPU path deliver, so big files are read and written by several.
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace aesgpu {

// Threads for reading and writing one large file: 1 (plain read() and write()) below 8 hardware
// threads, where the extra threads only compete with the cipher's; else half of them, at most 8,
// where the gain flattens out (bench/NOTES.md).
[[nodiscard]] unsigned default_io_threads();

class WorkerPool {
public:
    // `threads` counts the caller of run(), so the pool starts threads - 1 workers. Throws
    // ThreadLimit, naming `purpose`, when a thread cannot start.
    explicit WorkerPool(unsigned threads, const char *purpose = "parallel file reads and writes");
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    [[nodiscard]] unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

    // Calls task(0) .. task(count - 1) across the pool and the calling thread, and returns when
    // all have ended; rethrows the first exception a task threw. One run() at a time.
    void run(std::size_t count, const std::function<void(std::size_t)> &task);

    // Cuts [0, bytes) into about one piece per thread, each at least kMinPieceBytes and a
    // multiple of the 4 KiB page (but the last), and runs piece(offset, length) for each.
    void run_pieces(std::size_t bytes, const std::function<void(std::size_t, std::size_t)> &piece);

    // Below this a hand-off to another thread costs more than the copy it saves.
    static constexpr std::size_t kMinPieceBytes = std::size_t{256} << 10;

private:
    void work();
    void stop() noexcept;
    void run_tasks(std::unique_lock<std::mutex> &lock);

    std::mutex mutex_;
    std::condition_variable work_ready_;
    std::condition_variable all_done_;
    const std::function<void(std::size_t)> *task_ = nullptr;
    std::size_t count_ = 0;
    std::size_t next_ = 0;    // the next task index to hand out
    std::size_t running_ = 0; // tasks handed out and not yet finished
    std::exception_ptr error_;
    bool stopping_ = false;
    std::vector<std::thread> workers_;
};

} // namespace aesgpu
