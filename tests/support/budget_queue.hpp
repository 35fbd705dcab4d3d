// SPDX-License-Identifier: Apache-2.0
#pragma once
// A direct-request queue in front of a real one (no preload library sees io_uring's requests):
// requests run while they fit in a budget of bytes; the one that crosses it and every later one
// fail with an error without being submitted, as a disk that filled, failed or refused there.
// Optionally counts the bytes the requests that ran moved. And a queue that shows a test each request.
#include "io/direct_requests.hpp"

#include <sys/stat.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>

namespace aesgpu::test {

class BudgetQueue final : public DirectRequestQueue {
public:
    BudgetQueue(std::unique_ptr<DirectRequestQueue> inner, std::size_t budget, int error, std::size_t *moved = nullptr)
        : inner_(std::move(inner)), budget_(budget), error_(error), moved_(moved) {}

    void run(DirectOp op, int fd, std::span<const DirectRequest> requests, std::span<DirectResult> results) override {
        std::size_t fitting = 0;
        while (fitting < requests.size() && requests[fitting].length <= budget_) budget_ -= requests[fitting++].length;
        inner_->run(op, fd, requests.first(fitting), results.first(fitting));
        for (std::size_t i = fitting; i < requests.size(); ++i) results[i] = DirectResult{0, error_};
        if (fitting < requests.size()) budget_ = 0;
        for (std::size_t i = 0; moved_ && i < fitting; ++i) *moved_ += results[i].done;
    }
    [[nodiscard]] unsigned depth() const override { return inner_->depth(); }
    [[nodiscard]] const char *engine() const override { return inner_->engine(); }

private:
    std::unique_ptr<DirectRequestQueue> inner_;
    std::size_t budget_;
    int error_;
    std::size_t *moved_;
};

// A direct-request queue in front of a real one that shows each request, with the file's status
// as it is before the batch runs, to `inspect`: what a test checks of the requests made.
class WatchedQueue final : public DirectRequestQueue {
public:
    using Inspect = std::function<void(const struct stat &file, const DirectRequest &request)>;
    WatchedQueue(std::unique_ptr<DirectRequestQueue> inner, Inspect inspect)
        : inner_(std::move(inner)), inspect_(std::move(inspect)) {}

    void run(DirectOp op, int fd, std::span<const DirectRequest> requests, std::span<DirectResult> results) override {
        struct stat file {};
        if (::fstat(fd, &file) != 0) throw std::runtime_error("fstat of a direct file failed");
        for (const DirectRequest &request : requests) inspect_(file, request);
        inner_->run(op, fd, requests, results);
    }
    [[nodiscard]] unsigned depth() const override { return inner_->depth(); }
    [[nodiscard]] const char *engine() const override { return inner_->engine(); }

    // A maker of `engine`'s queue behind one of these.
    static DirectQueueMaker over(DirectEngine engine, Inspect inspect) {
        return [engine, inspect = std::move(inspect)] {
            DirectQueue made = make_direct_queue(engine);
            made.queue = std::make_unique<WatchedQueue>(std::move(made.queue), inspect);
            return made;
        };
    }

private:
    std::unique_ptr<DirectRequestQueue> inner_;
    Inspect inspect_;
};

} // namespace aesgpu::test
