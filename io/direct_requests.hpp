// SPDX-License-Identifier: Apache-2.0
#pragma once
// Several direct (O_DIRECT) reads or writes in flight on one file: through io_uring where it is
// built and the kernel allows it, where few threads keep many requests in flight; else on a pool
// of threads, each doing pread()/pwrite(). Above this, one code path: InputSource and DirectFileWriter
// cut a chunk into requests, run them, and finish whatever a request left undone through the page
// cache.
#include "common/note_sink.hpp"

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace aesgpu {

// Requests in flight at once through io_uring: the two-H100 host's virtio disk wrote a file in
// 2.43 s with 16 writers and 4.13 s with 4 (bench/NOTES.md).
inline constexpr unsigned kDirectIoDepth = 16;

enum class DirectOp { read, write };

// `length` bytes at file offset `offset`, into or out of `data`.
struct DirectRequest {
    std::byte *data;
    std::size_t length;
    off_t offset;
};

// What came of a request: the bytes moved, and why it stopped short of its length (0: a read met
// the end of the file; EINVAL: the file system refused the direct transfer, or the unaligned rest
// of it after a short one; any other errno: a real error).
struct DirectResult {
    std::size_t done = 0;
    int error = 0;
};

class DirectRequestQueue {
public:
    virtual ~DirectRequestQueue() = default;
    // Runs every request on `fd` to its end, continuing short transfers and retrying EINTR and
    // EAGAIN, with at most depth() in flight; results[i] tells of requests[i]. Returns only once
    // none is in flight, whatever failed.
    virtual void run(DirectOp op, int fd, std::span<const DirectRequest> requests, std::span<DirectResult> results) = 0;
    // How many requests it keeps in flight: the chunk is cut into this many.
    [[nodiscard]] virtual unsigned depth() const = 0;
    // For -v and --json: "io_uring" or "threads".
    [[nodiscard]] virtual const char *engine() const = 0;
    // Where a queue of threads says that it went on with fewer than it asked for.
    virtual void send_notes_to(NoteSink * /*notes*/) {}
};

enum class DirectEngine {
    automatic, // io_uring where built and allowed, else threads
    io_uring,  // only io_uring (tests): none where it cannot be had
    threads,
};

struct DirectQueue {
    std::unique_ptr<DirectRequestQueue> queue; // null only for DirectEngine::io_uring refused
    std::string why_not_io_uring;              // where it fell back (or was refused): why
};

// A queue of `engine`'s kind. io_uring is refused where it was not built (AESGPU_IO_URING=OFF, no
// liburing), where the kernel has none or forbids it (ENOSYS, EPERM from a seccomp filter or
// kernel.io_uring_disabled, ENOMEM from RLIMIT_MEMLOCK on kernels before 5.12), and where it
// lacks plain reads and writes (kernels before 5.6).
[[nodiscard]] DirectQueue make_direct_queue(DirectEngine engine);

// Makes the queue a file's direct requests go through: make_direct_queue() in the program; a
// queue that injects faults in tests, where no preload library sees io_uring's requests.
using DirectQueueMaker = std::function<DirectQueue()>;

// Moves what is left of `request` (from result.done on) with pread()/pwrite() on this thread,
// continuing short transfers, and says in `result` where and why it stopped: the thread engine's
// request, io_uring's cancelled ones, and DirectFileWriter's buffered writes at an offset.
void transfer_at(DirectOp op, int fd, const DirectRequest &request, DirectResult &result);

// Whether this build has io_uring at all.
[[nodiscard]] bool io_uring_built();

} // namespace aesgpu
