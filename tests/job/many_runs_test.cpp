// SPDX-License-Identifier: Apache-2.0
// Many runs with one key: a failure stops only its own run, unless every later run would meet it
// again (the key could not be had, a GPU asked for is not there): those are not started and take it.
#include "aes_gpu/gpu_backend.hpp"
#include "job/many_runs.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace aesgpu::test {
namespace {

class KeyThatMayFail final : public KeySource {
public:
    [[nodiscard]] bool passphrase_mode() const override { return true; }
    const SecretBytes &secret() override { return secret_; }
    [[nodiscard]] bool failed() const override { return failed_now; }
    bool failed_now = false;

private:
    SecretBytes secret_;
};

// What became of each run, in order: "ran", "failed: WHAT", "took: WHAT" or "not started".
class Recorder final : public ManyRunsObserver {
public:
    explicit Recorder(std::function<void(std::size_t)> body) : body_(std::move(body)) {}
    [[nodiscard]] bool may_start(std::size_t index) override { return index < start_below; }
    void run(std::size_t index) override {
        body_(index);
        outcomes.push_back("ran");
    }
    void failed(std::size_t /*index*/, const std::exception_ptr &failure, bool taken) override {
        try {
            std::rethrow_exception(failure);
        } catch (const std::exception &e) {
            outcomes.push_back(std::string(taken ? "took: " : "failed: ") + e.what());
        }
    }
    void not_started(std::size_t /*index*/) override { outcomes.push_back("not started"); }
    std::size_t start_below = 100;
    std::vector<std::string> outcomes;

private:
    std::function<void(std::size_t)> body_;
};

TEST(ManyRuns, AFailureStopsOnlyItsOwnRun) {
    KeyThatMayFail keys;
    Recorder recorder([](std::size_t index) {
        if (index == 1) throw std::runtime_error("bad decrypt");
    });
    run_many(3, {}, keys, recorder);
    EXPECT_EQ(recorder.outcomes, (std::vector<std::string>{"ran", "failed: bad decrypt", "ran"}));
}

TEST(ManyRuns, AKeyThatCouldNotBeHadIsEveryLaterRunsFailure) {
    KeyThatMayFail keys;
    Recorder recorder([&keys](std::size_t index) {
        if (index == 1) {
            keys.failed_now = true;
            throw std::runtime_error("the prompt gave nothing");
        }
    });
    run_many(4, {}, keys, recorder);
    EXPECT_EQ(recorder.outcomes,
              (std::vector<std::string>{"ran", "failed: the prompt gave nothing", "took: the prompt gave nothing",
                                        "took: the prompt gave nothing"}));
}

TEST(ManyRuns, AGpuThatIsNotThereIsEveryLaterRunsFailureAndOneThatMayComeBackIsTriedAgain) {
    KeyThatMayFail keys;
    BackendRequest missing;
    missing.choice = BackendChoice::gpu;
    missing.devices = {4096}; // no machine has it
    const auto gpu_fails_once = [](std::size_t index) {
        if (index == 0) throw GpuUnavailable("no GPU");
    };
    Recorder gone(gpu_fails_once);
    run_many(3, missing, keys, gone);
    EXPECT_EQ(gone.outcomes, (std::vector<std::string>{"failed: no GPU", "took: no GPU", "took: no GPU"}));

    BackendRequest cpu;
    cpu.choice = BackendChoice::cpu; // nothing to check: the GPU's failure was one of the moment
    Recorder busy(gpu_fails_once);
    run_many(3, cpu, keys, busy);
    EXPECT_EQ(busy.outcomes, (std::vector<std::string>{"failed: no GPU", "ran", "ran"}));
}

TEST(ManyRuns, RunsItMayNotStartAreNotStarted) {
    KeyThatMayFail keys;
    Recorder recorder([](std::size_t) {});
    recorder.start_below = 2;
    run_many(4, {}, keys, recorder);
    EXPECT_EQ(recorder.outcomes, (std::vector<std::string>{"ran", "ran", "not started", "not started"}));
}

TEST(ManyRuns, AFailureTheObserverThrowsEndsAllTheRuns) {
    KeyThatMayFail keys;
    int runs = 0;
    class Ending final : public ManyRunsObserver {
    public:
        explicit Ending(int &runs) : runs_(runs) {}
        void run(std::size_t) override {
            ++runs_;
            throw std::runtime_error("fails");
        }
        void failed(std::size_t, const std::exception_ptr &failure, bool) override { std::rethrow_exception(failure); }

    private:
        int &runs_;
    } ending(runs);
    EXPECT_THROW(run_many(3, {}, keys, ending), std::runtime_error);
    EXPECT_EQ(runs, 1);
}

} // namespace
} // namespace aesgpu::test
