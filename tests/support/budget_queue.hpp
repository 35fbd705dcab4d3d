// SPDX-License-Identifier: Apache-2.0
#pragma once
// A direct-request queue in front of a real one (no preload library sees io_uring's requests):
// requests run while they fit in a budget of bytes; the one that crosses it and every later one
// fail with an error without being submitted, as a disk that filled, failed or refused there.
// Optionally counts the bytes the requests that ran moved.
#include "io/direct_requests.hpp"

#include <cstddef>
#include <memory>
#include <span>

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

} // namespace aesgpu::test
