// SPDX-License-Identifier: Apache-2.0
#pragma once
// Many runs with one key, one after another, as the command runs the files it is given and the
// public library's cipher_files its tasks: one run's failure does not stop the others, but a
// failure that every later run would meet again ends the trying: the key could not be had
// (KeySource::failed: a key file unreadable, a prompt that gave nothing), or a GPU was asked for
// that this machine cannot give (gpu_failure_comes_again). The runs after it are not tried: each
// is told that failure (ManyRunsObserver::failed, `taken`). A run the observer does not let start
// (may_start: a stop asked for) ends the trying too; that comes first.
#include "engine/backend_selection.hpp"
#include "job/key_source.hpp"

#include <cstddef>
#include <exception>

namespace aesgpu {

// What each run is and what becomes of it, on the caller's thread, one run at a time.
class ManyRunsObserver {
public:
    virtual ~ManyRunsObserver() = default;
    // Whether run `index` may start; false: it and every run after it are not_started.
    [[nodiscard]] virtual bool may_start(std::size_t /*index*/) { return true; }
    // Run `index`; throws its failure.
    virtual void run(std::size_t index) = 0;
    // Run `index` failed (`taken`: it was not started, and takes an earlier run's failure that it
    // would meet again). May throw to end all the runs here.
    virtual void failed(std::size_t index, const std::exception_ptr &failure, bool taken) = 0;
    virtual void not_started(std::size_t /*index*/) {}
};

// Runs 0 .. runs-1 as the header says; `backend` and `keys` are what every run asks for.
void run_many(std::size_t runs, const BackendRequest &backend, const KeySource &keys, ManyRunsObserver &observer);

} // namespace aesgpu
