// SPDX-License-Identifier: Apache-2.0
// The undo actions a signal runs: registered only for what was made.
#include "common/interrupt_cleanup.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace aesgpu::test {
namespace {

TEST(InterruptCleanupDeathTest, NothingIsUndoneWhenTheStepMadeNothing) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            CleanupRegistry registry;
            bool undone = false;
            const InterruptCleanup failed = InterruptCleanup::after(
                &registry, [] { return false; }, [&] { undone = true; });
            const InterruptCleanup made = InterruptCleanup::after(
                &registry, [] { return true; }, [] {});
            registry.run_all();
            std::_Exit(!failed.armed() && made.armed() && !undone ? 0 : 1);
        },
        testing::ExitedWithCode(0), "");
}

// Each registry runs only what was registered in it, newest first, and a step with no registry
// is made all the same and registers nothing.
TEST(InterruptCleanupDeathTest, ARegistryRunsItsOwnUndoActionsNewestFirst) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            CleanupRegistry mine;
            CleanupRegistry other;
            std::string order;
            bool made_without = false;
            const InterruptCleanup first = InterruptCleanup::register_undo(&mine, [&] { order += "1"; });
            const InterruptCleanup second = InterruptCleanup::register_undo(&mine, [&] { order += "2"; });
            const InterruptCleanup elsewhere = InterruptCleanup::register_undo(&other, [&] { order += "x"; });
            const InterruptCleanup none = InterruptCleanup::after(
                nullptr, [&] { return made_without = true; }, [&] { order += "n"; });
            mine.run_all();
            std::_Exit(order == "21" && made_without && !none.armed() && elsewhere.armed() ? 0 : 1);
        },
        testing::ExitedWithCode(0), "");
}

} // namespace
} // namespace aesgpu::test
