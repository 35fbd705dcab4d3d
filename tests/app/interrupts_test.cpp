// SPDX-License-Identifier: Apache-2.0
// Signals end a run only after the undo actions ran, never in the middle of a commit, and not at
// all once the outputs are final. Each case runs in a child process (a death test), since
// starting the signal thread and dying of a signal are for keeps.
#include "app/interrupts.hpp"
#include "common/interrupt_cleanup.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace aesgpu::test {
namespace {

using namespace std::chrono_literals;

class InterruptsDeathTest : public testing::Test {
protected:
    // "fast" (fork, no re-exec): the child then sees the same directory. No threads run yet here.
    void SetUp() override { GTEST_FLAG_SET(death_test_style, "fast"); }
    static void touch(const std::string &path) { std::ofstream(path) << "x"; }
    TempDir dir;
};

TEST_F(InterruptsDeathTest, UndoActionsRunAndTheProcessDiesOfTheSignal) {
    const std::string marker = dir.file("undone");
    EXPECT_EXIT(
        {
            start_interrupt_handling();
            const InterruptCleanup undo =
                InterruptCleanup::register_undo(&interrupt_cleanups(), [&] { touch(marker); });
            ::kill(::getpid(), SIGUSR1);
            std::this_thread::sleep_for(5s);
            std::_Exit(0);
        },
        testing::KilledBySignal(SIGUSR1), "");
    EXPECT_TRUE(std::filesystem::exists(marker));
}

TEST_F(InterruptsDeathTest, ASignalDuringAnUninterruptedStepWaitsForItsEnd) {
    const std::string marker = dir.file("step-ended");
    EXPECT_EXIT(
        {
            start_interrupt_handling();
            run_uninterrupted([&] {
                ::kill(::getpid(), SIGTERM);
                std::this_thread::sleep_for(300ms);
                touch(marker);
            });
            std::this_thread::sleep_for(5s);
            std::_Exit(0);
        },
        testing::KilledBySignal(SIGTERM), "");
    EXPECT_TRUE(std::filesystem::exists(marker)) << "the step was cut short";
}

TEST_F(InterruptsDeathTest, OnceSettledASignalEndsTheProcessWithTheSettledStatus) {
    // A signal during the last commit finds every output final once the commit is done.
    for (const int status : {0, 1}) {
        EXPECT_EXIT(
            {
                start_interrupt_handling();
                run_uninterrupted([&] {
                    ::kill(::getpid(), SIGINT);
                    std::this_thread::sleep_for(200ms);
                    settle_interrupts(status);
                });
                std::this_thread::sleep_for(5s); // a slow wind-down, cut short by the signal
                std::_Exit(7);
            },
            testing::ExitedWithCode(status), "");
    }
}

TEST_F(InterruptsDeathTest, SignalsIgnoredByTheParentStayIgnored) {
    EXPECT_EXIT(
        {
            ::signal(SIGHUP, SIG_IGN); // as nohup leaves it
            start_interrupt_handling();
            ::kill(::getpid(), SIGHUP);
            std::this_thread::sleep_for(300ms);
            std::_Exit(0);
        },
        testing::ExitedWithCode(0), "");
}

} // namespace
} // namespace aesgpu::test
