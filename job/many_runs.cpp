// SPDX-License-Identifier: Apache-2.0
#include "job/many_runs.hpp"

#include "aes_gpu/gpu_backend.hpp"

namespace aesgpu {
namespace {

// A failure that every later run would meet again. A GPU that may come back (in use elsewhere,
// short of memory) is tried again for the next run.
bool comes_again(const std::exception_ptr &failure, const BackendRequest &backend, const KeySource &keys) {
    if (keys.failed()) return true;
    try {
        std::rethrow_exception(failure);
    } catch (const GpuUnavailable &) {
        return !gpu_can_be_had(backend);
    } catch (...) {
        return false;
    }
}

} // namespace

void run_many(std::size_t runs, const BackendRequest &backend, const KeySource &keys, ManyRunsObserver &observer) {
    std::exception_ptr for_the_rest;
    for (std::size_t index = 0; index < runs; ++index) {
        if (!observer.may_start(index)) {
            for (; index < runs; ++index) observer.not_started(index);
            return;
        }
        if (for_the_rest) {
            observer.failed(index, for_the_rest, /*taken=*/true);
            continue;
        }
        try {
            observer.run(index);
        } catch (...) {
            const std::exception_ptr failure = std::current_exception();
            observer.failed(index, failure, /*taken=*/false);
            if (comes_again(failure, backend, keys)) for_the_rest = failure;
        }
    }
}

} // namespace aesgpu
