// SPDX-License-Identifier: Apache-2.0
#include "io/direct_requests.hpp"

#include "common/worker_pool.hpp"
#include "io/direct_io.hpp"
#include "io/io_uring_queue.hpp"

#include <unistd.h>

#include <cerrno>
#include <optional>

namespace aesgpu {

namespace {

// Each request on a thread of its own, kDirectIoStreams at once: the fallback, and the engine
// of builds without liburing. The threads start at the first run, after the cipher's own: under a
// thread limit (ulimit -u, a control group's pids.max) the cipher's are the ones it cannot do
// without, and these make do with fewer, down to the caller's thread.
class ThreadedQueue final : public DirectRequestQueue {
public:
    void run(DirectOp op, int fd, std::span<const DirectRequest> requests, std::span<DirectResult> results) override {
        if (!pool_) pool_.emplace(kDirectIoStreams, "direct reads and writes", ThreadShortfall::make_do, notes_);
        pool_->run(requests.size(), [&](std::size_t index) {
            results[index] = DirectResult{};
            transfer_at(op, fd, requests[index], results[index]);
        });
    }
    [[nodiscard]] unsigned depth() const override { return pool_ ? pool_->threads() : kDirectIoStreams; }
    [[nodiscard]] const char *engine() const override { return "threads"; }
    void send_notes_to(NoteSink *notes) override { notes_ = notes; }

private:
    std::optional<WorkerPool> pool_;
    NoteSink *notes_ = nullptr;
};

} // namespace

void transfer_at(DirectOp op, int fd, const DirectRequest &request, DirectResult &result) {
    while (result.done < request.length) {
        std::byte *const data = request.data + result.done;
        const std::size_t length = request.length - result.done;
        const off_t offset = request.offset + static_cast<off_t>(result.done);
        const ssize_t moved = op == DirectOp::read ? ::pread(fd, data, length, offset) : ::pwrite(fd, data, length, offset);
        if (moved < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (moved < 0) {
            result.error = errno;
            return;
        }
        if (moved == 0) return; // a read at the end of the file
        result.done += static_cast<std::size_t>(moved);
    }
}

bool io_uring_built() {
#if AESGPU_HAVE_IO_URING
    return true;
#else
    return false;
#endif
}

DirectQueue make_direct_queue(DirectEngine engine) {
    DirectQueue made;
    if (engine != DirectEngine::threads) {
#if AESGPU_HAVE_IO_URING
        made.queue = make_io_uring_queue(kDirectIoDepth, made.why_not_io_uring);
        if (made.queue) return made;
#else
        made.why_not_io_uring = "this build has no io_uring (AESGPU_IO_URING=OFF or no liburing)";
#endif
        if (engine == DirectEngine::io_uring) return made;
    }
    made.queue = std::make_unique<ThreadedQueue>();
    return made;
}

} // namespace aesgpu
