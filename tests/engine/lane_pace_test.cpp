// SPDX-License-Identifier: Apache-2.0
// A lane's pace, from when its jobs end: throughput while busy, not one job's latency; the first
// job not counted; idle time not counted.
#include "engine/lane_pace.hpp"

#include <gtest/gtest.h>

namespace aesgpu::test {
namespace {

using std::chrono::milliseconds;

TEST(LanePace, IsUnknownUntilAJobAfterTheFirstHasEnded) {
    LanePace pace;
    const auto t0 = LanePace::Clock::time_point{} + milliseconds(1000);
    EXPECT_FALSE(pace.seconds_until_done(1000).has_value());
    pace.job_started(1000, t0);
    pace.job_ended(1000, t0 + milliseconds(50)); // the first: start-up costs, not counted
    EXPECT_FALSE(pace.seconds_until_done(1000).has_value());
    pace.job_started(1000, t0 + milliseconds(50));
    pace.job_ended(1000, t0 + milliseconds(60));
    ASSERT_TRUE(pace.seconds_per_byte().has_value());
    EXPECT_NEAR(*pace.seconds_per_byte(), 0.010 / 1000, 1e-12);
}

TEST(LanePace, MeasuresThroughputOfOverlappingJobsAndWaitsBehindWhatIsInFlight) {
    // Four jobs at once (a GPU's streams), ending 2 ms apart: 2 ms per job of 1000 bytes, though
    // each took 8 ms or more from submit to end.
    LanePace pace;
    const auto t0 = LanePace::Clock::time_point{} + milliseconds(1000);
    for (int i = 0; i < 4; ++i) pace.job_started(1000, t0);
    for (int i = 0; i < 4; ++i) pace.job_ended(1000, t0 + milliseconds(8 + 2 * i));
    ASSERT_TRUE(pace.seconds_per_byte().has_value());
    EXPECT_NEAR(*pace.seconds_per_byte(), 0.002 / 1000, 1e-12);
    EXPECT_EQ(pace.in_flight(), 0u);
    // With three jobs in flight, a new one ends after four jobs' time.
    for (int i = 0; i < 3; ++i) pace.job_started(1000, t0 + milliseconds(20));
    EXPECT_EQ(pace.in_flight(), 3u);
    EXPECT_NEAR(*pace.seconds_until_done(1000), 0.008, 1e-9);
}

TEST(LanePace, CountsBusyTimeOnlyAndTimeBetweenEndsFromWhenItGotBusyAgain) {
    LanePace pace;
    const auto t0 = LanePace::Clock::time_point{} + milliseconds(1000);
    pace.job_started(500, t0);
    pace.job_ended(500, t0 + milliseconds(10));
    // Idle for a second, then one job of 3 ms: the pace is 3 ms per 500 bytes, not 1003.
    pace.job_started(500, t0 + milliseconds(1010));
    pace.job_ended(500, t0 + milliseconds(1013));
    EXPECT_NEAR(*pace.seconds_per_byte(), 0.003 / 500, 1e-12);
    EXPECT_NEAR(pace.busy_seconds(t0 + milliseconds(5000)), 0.013, 1e-9);
    // Busy now: the time so far counts.
    pace.job_started(500, t0 + milliseconds(2000));
    EXPECT_NEAR(pace.busy_seconds(t0 + milliseconds(2004)), 0.017, 1e-9);
}

TEST(LanePace, FollowsAChangeOfPaceWithinAFewJobs) {
    LanePace pace;
    auto t = LanePace::Clock::time_point{} + milliseconds(1000);
    pace.job_started(1000, t);
    for (int i = 0; i < 10; ++i) { // 1 ms a job
        pace.job_started(1000, t);
        t += milliseconds(1);
        pace.job_ended(1000, t);
    }
    for (int i = 0; i < 10; ++i) { // then 4 ms a job (the CPU, once I/O threads compete with it)
        pace.job_started(1000, t);
        t += milliseconds(4);
        pace.job_ended(1000, t);
    }
    EXPECT_GT(*pace.seconds_per_byte(), 0.0035 / 1000);
    EXPECT_LT(*pace.seconds_per_byte(), 0.0041 / 1000);
}

TEST(LanePace, AnIdleLaneIsDueAnotherLookAndItsNextJobReplacesTheStalePace) {
    LanePace pace;
    auto t = LanePace::Clock::time_point{} + milliseconds(1000);
    pace.job_started(1000, t);
    pace.job_ended(1000, t += milliseconds(1));
    pace.job_started(1000, t);
    pace.job_ended(1000, t += milliseconds(10)); // one slow moment: 10 ms a job
    EXPECT_FALSE(pace.due_another_look(1000, t + milliseconds(39)));
    EXPECT_TRUE(pace.due_another_look(1000, t + milliseconds(41))); // idle for four of its jobs
    EXPECT_FALSE(pace.due_another_look(4000, t + milliseconds(41))) << "four jobs of this size take longer";
    t += milliseconds(41);
    pace.job_started(1000, t);
    EXPECT_FALSE(pace.due_another_look(1000, t + milliseconds(100))) << "busy: measured as it goes";
    pace.job_ended(1000, t += milliseconds(1));
    EXPECT_NEAR(*pace.seconds_per_byte(), 0.001 / 1000, 1e-12) << "the fresh job replaced the stale pace";
    pace.job_started(1000, t);
    pace.job_ended(1000, t += milliseconds(5));
    EXPECT_NEAR(*pace.seconds_per_byte(), 0.002 / 1000, 1e-12) << "and later ones average again";
}

} // namespace
} // namespace aesgpu::test
