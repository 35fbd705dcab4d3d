// SPDX-License-Identifier: Apache-2.0
// The one worker pool: posted tasks, fork-join runs and the pieces a range is cut into.
#include "common/worker_pool.hpp"
#include "io/io_threads.hpp"
#include "support/allocation_hooks.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace aesgpu::test {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(WorkerPool, RunsEveryTaskOnceAndRethrowsTheFirstFailure) {
    for (const unsigned threads : {1u, 2u, 5u}) {
        WorkerPool pool(threads, "the test");
        EXPECT_EQ(pool.threads(), threads);
        std::vector<std::atomic<int>> runs(1000);
        pool.run(runs.size(), [&](std::size_t i) { ++runs[i]; });
        for (const auto &count : runs) EXPECT_EQ(count.load(), 1);
        pool.run(0, [](std::size_t) { throw std::logic_error("no task should run"); });

        std::atomic<int> finished{0};
        EXPECT_THROW(pool.run(50,
                              [&](std::size_t i) {
                                  if (i == 7) throw std::runtime_error("task 7");
                                  ++finished;
                              }),
                     std::runtime_error);
        EXPECT_EQ(finished.load(), 49) << "the other tasks still run to the end";
        pool.run(3, [&](std::size_t) { ++finished; }); // usable again after a failure
        EXPECT_EQ(finished.load(), 52);
    }
}

TEST(WorkerPool, PostedTasksRunOnWorkersWithTheirNumbersAndFinishBeforeThePoolGoes) {
    std::mutex mutex;
    std::set<unsigned> workers;
    std::atomic<int> ran{0};
    {
        WorkerPool pool(3, "the test");
        for (int i = 0; i < 200; ++i) {
            pool.post([&](unsigned worker) {
                std::this_thread::sleep_for(std::chrono::microseconds(50));
                std::lock_guard lock(mutex);
                workers.insert(worker);
                ++ran;
            });
        }
    } // the destructor runs what is still queued
    EXPECT_EQ(ran.load(), 200);
    for (const unsigned worker : workers) EXPECT_TRUE(worker == 1 || worker == 2) << worker;

    WorkerPool alone(1, "the test");
    unsigned seen = 99;
    alone.post([&](unsigned worker) { seen = worker; });
    EXPECT_EQ(seen, 0u) << "with no workers, a posted task runs at once on the caller";
}

TEST(WorkerPool, PiecesTileTheRangeInPageMultiples) {
    WorkerPool pool(4, "the test");
    for (const std::size_t bytes : {std::size_t{1}, kMiB - 1, 4 * kMiB + 123, 64 * kMiB}) {
        std::mutex mutex;
        std::set<std::pair<std::size_t, std::size_t>> pieces;
        pool.run_pieces(bytes, kFileCopyPieces, [&](std::size_t offset, std::size_t length) {
            std::lock_guard lock(mutex);
            pieces.emplace(offset, length);
        });
        std::size_t next = 0;
        for (const auto &[offset, length] : pieces) {
            EXPECT_EQ(offset, next) << "no gap, no overlap";
            EXPECT_GT(length, 0u);
            if (offset + length != bytes) {
                EXPECT_EQ(length % 4096, 0u);
                EXPECT_GE(length, kFileCopyPieces.min_piece_bytes);
            }
            next = offset + length;
        }
        EXPECT_EQ(next, bytes);
        EXPECT_LE(pieces.size(), pool.threads()) << "about one piece per thread";
    }
}

TEST(WorkerPool, ARunThatCannotQueueItsHelpersStillRunsEveryTaskOnce) {
    // Queueing a helper allocates only now and then (when the queue needs a new block), so many
    // runs each get their first allocation failed: those that reach it must still run every task
    // exactly once, without throwing, and return only once no helper uses their frame (ASan and
    // TSan check that part).
    WorkerPool pool(4, "the test");
    int reached = 0;
    for (int round = 0; round < 200; ++round) {
        std::vector<std::atomic<int>> runs(64);
        {
            const FailingAllocation failing(0);
            EXPECT_NO_THROW(pool.run(runs.size(), [&](std::size_t i) { ++runs[i]; }));
            reached += failing.reached() ? 1 : 0;
        }
        for (const auto &count : runs) EXPECT_EQ(count.load(), 1);
    }
    EXPECT_GT(reached, 0) << "no run allocated: the test tested nothing";
}

// What a pool told its notes.
struct NotesHeard final : NoteSink {
    void note(NoteLevel level, std::string_view what) noexcept override {
        EXPECT_EQ(level, NoteLevel::info) << what;
        heard.emplace_back(what);
    }
    std::vector<std::string> heard;
};

TEST(WorkerPool, APoolThatMakesDoGoesOnWithTheThreadsItGotWhenAnAllocationFails) {
    // Short of address space, starting a thread fails with bad_alloc as often as with EAGAIN (its
    // state, or its error's message). A pool that makes do keeps the threads it started, works,
    // and tells its notes (once, at info level); one that must have them all fails, with none
    // left running.
    std::set<unsigned> sizes;
    bool made = false;
    at_every_allocation([&](int successes) {
        std::optional<WorkerPool> pool;
        NotesHeard notes;
        bool reached = false;
        {
            const FailingAllocation failing(successes);
            try {
                pool.emplace(4, "the test", ThreadShortfall::make_do, &notes);
            } catch (const std::bad_alloc &) {
                // Only in the pool's own set-up (its queue, its list of threads), which comes first.
                EXPECT_FALSE(made) << successes;
            }
            made = made || pool.has_value();
            reached = failing.reached();
        }
        if (pool) {
            sizes.insert(pool->threads());
            if (pool->threads() < 4) {
                EXPECT_EQ(notes.heard, std::vector<std::string>{"cannot start a thread for the test: not enough memory; "
                                                                "going on with " +
                                                                std::to_string(pool->threads()) + " of 4 threads"});
            } else {
                EXPECT_TRUE(notes.heard.empty()) << notes.heard.front();
            }
            std::vector<std::atomic<int>> runs(64);
            pool->run(runs.size(), [&](std::size_t i) { ++runs[i]; });
            for (const auto &count : runs) EXPECT_EQ(count.load(), 1);
        }
        return reached;
    });
    EXPECT_TRUE(sizes.contains(1)) << "no pool was left with the caller's thread alone";
    EXPECT_TRUE(sizes.contains(4));
    EXPECT_GE(sizes.size(), 3u) << "a refusal after the first thread was never reached";

    at_every_allocation([&](int successes) {
        const FailingAllocation failing(successes);
        try {
            const WorkerPool pool(4, "the test");
        } catch (const std::bad_alloc &) {
        }
        return failing.reached();
    });
}

} // namespace
} // namespace aesgpu::test
