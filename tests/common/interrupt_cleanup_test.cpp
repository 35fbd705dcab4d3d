// SPDX-License-Identifier: Apache-2.0
// The undo actions a signal runs: registered only for what was made.
#include "common/interrupt_cleanup.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace aesgpu::test {
namespace {

TEST(InterruptCleanupDeathTest, NothingIsUndoneWhenTheStepMadeNothing) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            bool undone = false;
            const InterruptCleanup failed = InterruptCleanup::after([] { return false; }, [&] { undone = true; });
            const InterruptCleanup made = InterruptCleanup::after([] { return true; }, [] {});
            run_interrupt_cleanups();
            std::_Exit(!failed.armed() && made.armed() && !undone ? 0 : 1);
        },
        testing::ExitedWithCode(0), "");
}

} // namespace
} // namespace aesgpu::test
