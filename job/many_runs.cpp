// SPDX-License-Identifier: Apache-2.0
#include "job/many_runs.hpp"

namespace aesgpu {

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
            if (keys.failed() || gpu_failure_comes_again(failure, backend)) for_the_rest = failure;
        }
    }
}

} // namespace aesgpu
