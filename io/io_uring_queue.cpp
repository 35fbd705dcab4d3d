// SPDX-License-Identifier: Apache-2.0
#include "io/io_uring_queue.hpp"

#include <liburing.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <vector>

namespace aesgpu {

namespace {

class IoUringQueue final : public DirectRequestQueue {
public:
    explicit IoUringQueue(unsigned depth) : depth_(depth) {}
    ~IoUringQueue() override {
        if (ready_) io_uring_queue_exit(&ring_);
    }
    IoUringQueue(const IoUringQueue &) = delete;
    IoUringQueue &operator=(const IoUringQueue &) = delete;

    // Empty where the ring is made and does plain reads and writes; else why not.
    std::string start() {
        if (const int error = io_uring_queue_init(depth_, &ring_, 0); error < 0) {
            return "the kernel refused io_uring (" + std::string(std::strerror(-error)) + ")";
        }
        ready_ = true;
        io_uring_probe *probe = io_uring_get_probe_ring(&ring_);
        const bool plain = probe && io_uring_opcode_supported(probe, IORING_OP_READ) &&
                           io_uring_opcode_supported(probe, IORING_OP_WRITE);
        if (probe) io_uring_free_probe(probe);
        return plain ? "" : "this kernel's io_uring has no plain reads and writes (before Linux 5.6)";
    }

    void run(DirectOp op, int fd, std::span<const DirectRequest> requests, std::span<DirectResult> results) override {
        std::fill(results.begin(), results.end(), DirectResult{});
        std::vector<std::size_t> again; // continued after a short transfer, EINTR or EAGAIN
        // Cancelled by the kernel: a request it hands to a worker of its own, where no thread may
        // start (ulimit -u, pids.max), fails so. Those are done here, once none is in flight.
        std::vector<std::size_t> by_hand;
        std::size_t next = 0;
        unsigned in_flight = 0;
        const auto queue = [&](std::size_t index) {
            io_uring_sqe *entry = io_uring_get_sqe(&ring_); // never null: in_flight < depth_ entries
            const DirectRequest &request = requests[index];
            const std::size_t done = results[index].done;
            const auto length = static_cast<unsigned>(request.length - done);
            const auto offset = static_cast<__u64>(request.offset) + done;
            if (op == DirectOp::read) {
                io_uring_prep_read(entry, fd, request.data + done, length, offset);
            } else {
                io_uring_prep_write(entry, fd, request.data + done, length, offset);
            }
            io_uring_sqe_set_data64(entry, index);
            ++in_flight;
        };
        while (next < requests.size() || in_flight > 0 || !again.empty()) {
            for (const std::size_t index : again) queue(index);
            again.clear();
            while (next < requests.size() && in_flight < depth_) queue(next++);
            if (const int error = io_uring_submit_and_wait(&ring_, 1);
                error < 0 && error != -EINTR && error != -EAGAIN && error != -EBUSY) {
                // Requests the kernel holds write into (or read from) the caller's buffers: with
                // no way to wait for them, going on could corrupt memory.
                std::terminate();
            }
            unsigned head = 0;
            unsigned seen = 0;
            io_uring_cqe *completion = nullptr;
            io_uring_for_each_cqe(&ring_, head, completion) {
                ++seen;
                --in_flight;
                const auto index = static_cast<std::size_t>(io_uring_cqe_get_data64(completion));
                DirectResult &result = results[index];
                const int moved = completion->res;
                if (moved == -EINTR || moved == -EAGAIN) {
                    again.push_back(index);
                } else if (moved == -ECANCELED) {
                    by_hand.push_back(index);
                } else if (moved < 0) {
                    result.error = -moved;
                } else if (moved > 0) {
                    result.done += static_cast<std::size_t>(moved);
                    if (result.done < requests[index].length) again.push_back(index);
                } // 0: a read at the end of the file
            }
            io_uring_cq_advance(&ring_, seen);
        }
        for (const std::size_t index : by_hand) transfer_at(op, fd, requests[index], results[index]);
    }

    [[nodiscard]] unsigned depth() const override { return depth_; }
    [[nodiscard]] const char *engine() const override { return "io_uring"; }

private:
    unsigned depth_;
    io_uring ring_{};
    bool ready_ = false;
};

} // namespace

std::unique_ptr<DirectRequestQueue> make_io_uring_queue(unsigned depth, std::string &why_not) {
    auto queue = std::make_unique<IoUringQueue>(depth);
    why_not = queue->start();
    if (!why_not.empty()) return nullptr;
    return queue;
}

} // namespace aesgpu
