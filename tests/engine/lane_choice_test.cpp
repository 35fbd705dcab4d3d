// SPDX-License-Identifier: Apache-2.0
// Which lane takes the next job: the dispatcher's policy with time points instead of sleeps. The
// single choices first, then whole runs simulated on a clock the test keeps: lanes that work
// through their jobs one after another at set speeds, a reader that fills a ring of slots, and a
// writer that frees them in order. The same runs on threads (dispatcher_test.cpp) depend on
// how a loaded machine schedules them; these give the same answer every time.
#include "engine/lane_choice.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>
#include <queue>
#include <stdexcept>
#include <vector>

namespace aesgpu::test {
namespace {

using Clock = LanePace::Clock;
using std::chrono::microseconds;
using std::chrono::milliseconds;

constexpr std::uint64_t kJobBytes = 1 << 20;
const Clock::time_point kStart = Clock::time_point{} + std::chrono::seconds(1);

// A lane measured at `per_job` for jobs of kJobBytes, its last job ended at `ended`.
LanePace measured(microseconds per_job, Clock::time_point ended) {
    LanePace pace;
    const Clock::time_point first = ended - 2 * per_job;
    pace.job_started(kJobBytes, first);
    pace.job_ended(kJobBytes, first + per_job); // the first end is not a sample
    pace.job_started(kJobBytes, first + per_job);
    pace.job_ended(kJobBytes, ended);
    return pace;
}

TEST(LaneChoice, TheLaneExpectedToFinishFirstTakesTheJob) {
    const LanePace fast = measured(microseconds(100), kStart);
    const LanePace slow = measured(microseconds(1000), kStart);
    const std::vector<LaneView> lanes{{&slow, 2, true}, {&fast, 2, true}};
    EXPECT_EQ(choose_lane(lanes, kJobBytes, kStart), 1u);
}

TEST(LaneChoice, ALaneNotYetMeasuredTakesJobsWhileItHasRoom) {
    const LanePace fast = measured(microseconds(100), kStart);
    LanePace fresh;
    std::vector<LaneView> lanes{{&fast, 2, true}, {&fresh, 1, true}};
    EXPECT_EQ(choose_lane(lanes, kJobBytes, kStart), 1u);
    fresh.job_started(kJobBytes, kStart); // now full, and still unmeasured
    EXPECT_EQ(choose_lane(lanes, kJobBytes, kStart), 0u);
}

TEST(LaneChoice, ALaneThatTakesNoJobsIsNeverChosen) {
    const LanePace fast = measured(microseconds(100), kStart);
    const LanePace slow = measured(microseconds(1000), kStart);
    const std::vector<LaneView> lanes{{&fast, 2, false}, {&slow, 2, true}};
    EXPECT_EQ(choose_lane(lanes, kJobBytes, kStart), 1u);
    const std::vector<LaneView> none{{&fast, 2, false}};
    EXPECT_EQ(choose_lane(none, kJobBytes, kStart), std::nullopt);
}

TEST(LaneChoice, WithTheBestLaneFullAndNoLaneDueALookTheJobWaits) {
    LanePace fast = measured(microseconds(100), kStart);
    const LanePace slow = measured(microseconds(100000), kStart);
    fast.job_started(kJobBytes, kStart);
    fast.job_started(kJobBytes, kStart);
    const std::vector<LaneView> lanes{{&fast, 2, true}, {&slow, 2, true}};
    // The slow lane idle for less than four of its job times: waiting for the fast lane is sooner.
    EXPECT_EQ(choose_lane(lanes, kJobBytes, kStart + milliseconds(1)), std::nullopt);
    // Idle for longer: it gets a job, and a fresh measurement.
    EXPECT_EQ(choose_lane(lanes, kJobBytes, kStart + milliseconds(401)), 1u);
}

TEST(LaneChoice, OfTheIdleLanesDueALookTheOneIdleLongestGoesFirst) {
    const LanePace early = measured(microseconds(1000), kStart);
    const LanePace later = measured(microseconds(1000), kStart + milliseconds(5));
    const LanePace best = measured(microseconds(10), kStart + milliseconds(20));
    const std::vector<LaneView> lanes{{&best, 2, true}, {&later, 2, true}, {&early, 2, true}};
    // The best lane is idle: each of the others has been idle for more than four job times.
    EXPECT_EQ(choose_lane(lanes, kJobBytes, kStart + milliseconds(20)), 2u);
    // A lane without room is not looked at again.
    const std::vector<LaneView> roomless{{&best, 2, true}, {&later, 2, true}, {&early, 0, true}};
    EXPECT_EQ(choose_lane(roomless, kJobBytes, kStart + milliseconds(20)), 1u);
}

// A lane of the simulated run: each job takes `per_job` once the lane's previous job is done,
// the first `slow_jobs` of them `slow_per_job` (a busy moment of the machine).
struct SimulatedLane {
    microseconds per_job;
    std::size_t room = 2;
    std::size_t slow_jobs = 0;
    microseconds slow_per_job{};
};

struct SimulatedRun {
    std::vector<std::size_t> jobs;      // per lane
    std::vector<std::size_t> most_held; // per lane: the most jobs it held at once
    Clock::time_point finished;         // when the writer had the last job out
};

// `jobs` jobs of kJobBytes through `lanes`, over a ring of `slots` slots that the writer frees in
// order; the reader takes `fill` to fill a free slot. The dispatcher's rule: the job waits (the
// clock moves to the next job end) while choose_lane() says so.
SimulatedRun simulate(const std::vector<SimulatedLane> &lanes, std::size_t jobs, std::size_t slots,
                      microseconds fill = microseconds(0)) {
    struct End {
        Clock::time_point at;
        std::size_t lane;
        bool operator>(const End &other) const { return at > other.at; }
    };
    std::vector<LanePace> paces(lanes.size());
    std::vector<LaneView> views;
    for (std::size_t i = 0; i < lanes.size(); ++i) views.push_back({&paces[i], lanes[i].room, true});
    std::vector<Clock::time_point> busy_until(lanes.size(), kStart);
    std::priority_queue<End, std::vector<End>, std::greater<>> ends;
    std::vector<Clock::time_point> written(jobs); // when the writer had job i out and its slot free
    SimulatedRun run{std::vector<std::size_t>(lanes.size()), std::vector<std::size_t>(lanes.size()), kStart};
    Clock::time_point now = kStart;
    const auto end_jobs_until = [&](Clock::time_point until) {
        while (!ends.empty() && ends.top().at <= until) {
            paces[ends.top().lane].job_ended(kJobBytes, ends.top().at);
            ends.pop();
        }
    };
    for (std::size_t job = 0; job < jobs; ++job) {
        now = std::max(now, job >= slots ? written[job - slots] : kStart) + fill;
        end_jobs_until(now);
        std::optional<std::size_t> lane;
        while (!(lane = choose_lane(views, kJobBytes, now))) {
            if (ends.empty()) throw std::logic_error("no lane will ever take the job");
            now = ends.top().at;
            end_jobs_until(now);
        }
        const SimulatedLane &chosen = lanes[*lane];
        paces[*lane].job_started(kJobBytes, now);
        const microseconds takes = run.jobs[*lane]++ < chosen.slow_jobs ? chosen.slow_per_job : chosen.per_job;
        busy_until[*lane] = std::max(now, busy_until[*lane]) + takes;
        ends.push({busy_until[*lane], *lane});
        run.most_held[*lane] = std::max(run.most_held[*lane], paces[*lane].in_flight());
        written[job] = std::max(busy_until[*lane], job > 0 ? written[job - 1] : kStart);
    }
    run.finished = jobs > 0 ? written.back() : kStart;
    return run;
}

TEST(LaneChoice, AFasterLaneTakesMoreJobsAndNoLaneMoreThanItHasRoomFor) {
    // One lane a hundred times slower than the other. Handing jobs to whichever lane has room
    // would give the slow lane about a third of them (its room over both rooms), and the writer,
    // which takes jobs in order, would wait on each: the fast lane must take almost all of them.
    const SimulatedRun run = simulate({{microseconds(200)}, {microseconds(20000)}}, 300, 7);
    EXPECT_GT(run.jobs[0], 8 * run.jobs[1]) << run.jobs[0] << " fast, " << run.jobs[1] << " slow";
    EXPECT_GT(run.jobs[1], 0u) << "the slow lane was measured once, at least";
    EXPECT_LE(run.most_held[0], 2u);
    EXPECT_LE(run.most_held[1], 2u);
}

TEST(LaneChoice, LanesOfOnePaceShareTheWork) {
    // The CPU beside a GPU of its speed, all run long.
    const SimulatedRun run = simulate({{microseconds(300)}, {microseconds(300)}}, 200, 7);
    EXPECT_GE(run.jobs[0], 80u) << run.jobs[0] << " one, " << run.jobs[1] << " two";
    EXPECT_GE(run.jobs[1], 80u) << run.jobs[0] << " one, " << run.jobs[1] << " two";
}

TEST(LaneChoice, ALaneSlowForAMomentGetsItsShareBack) {
    // Lane one's first jobs meet a busy moment (twenty times its pace: a descheduled thread on a
    // loaded machine), then it runs at lane two's pace. Measured slow, it would wait behind lane
    // two's full room for the rest of the run: it gets another look once idle.
    const SimulatedRun run = simulate({{microseconds(300), 2, 3, microseconds(6000)}, {microseconds(300)}}, 400, 7);
    EXPECT_GE(run.jobs[0], 100u) << run.jobs[0] << " one, " << run.jobs[1] << " two";
}

TEST(LaneChoice, EqualLanesShareJobsThatComeOneAtATime) {
    // A reader slower than the lanes (an 8 GiB file on tmpfs: a chunk per 2.7 ms, a GPU's job
    // 0.4 ms) finds every lane idle at each job. Lane one's first measured job meets a busy
    // moment: measured slow, and idle, it was never measured again, and lane two took every later
    // job (two H100s: 71% and 9%). Idle for four of its own job times, it gets another look.
    const SimulatedRun run =
        simulate({{microseconds(300), 2, 2, microseconds(20000)}, {microseconds(300)}}, 120, 1, microseconds(2000));
    EXPECT_GE(run.jobs[0], 30u) << run.jobs[0] << " one, " << run.jobs[1] << " two";
    EXPECT_GE(run.jobs[1], 30u) << run.jobs[0] << " one, " << run.jobs[1] << " two";
}

TEST(LaneChoice, EightGpusAndTheCpuEachKeepTheirShareAndTheRingFlowing) {
    // Nine lanes, as dispatched() makes them on an eight-GPU host: eight GPUs of four streams
    // (each sharing the host's copy bandwidth: 8 MiB in 300 us), the CPU beside them (faster than
    // one of them, with room for five jobs), over a ring of 3 + 8 x 4 + 5 slots that the writer
    // frees in order. No lane may go hungry behind the in-order writer, and the run must take
    // about the time the lanes' summed rates allow.
    std::vector<SimulatedLane> lanes{{microseconds(150), 5}};
    for (int gpu = 0; gpu < 8; ++gpu) lanes.push_back({microseconds(300), 4});
    constexpr std::size_t kJobs = 3000;
    const SimulatedRun run = simulate(lanes, kJobs, 3 + 8 * 4 + 5);
    const double jobs_per_us = 1.0 / 150 + 8.0 / 300;
    const double ideal_us = double(kJobs) / jobs_per_us;
    const double took_us = std::chrono::duration<double, std::micro>(run.finished - kStart).count();
    EXPECT_LT(took_us, 1.1 * ideal_us) << took_us << " us against " << ideal_us << " us ideal";
    const double cpu_share = double(run.jobs[0]) / kJobs;
    EXPECT_GT(cpu_share, 0.8 * (1.0 / 150) / jobs_per_us) << run.jobs[0] << " jobs on the CPU";
    for (std::size_t gpu = 1; gpu < lanes.size(); ++gpu) {
        const double share = double(run.jobs[gpu]) / kJobs;
        EXPECT_NEAR(share, (1.0 / 300) / jobs_per_us, 0.2 * (1.0 / 300) / jobs_per_us)
            << "GPU lane " << gpu << ": " << run.jobs[gpu] << " jobs";
        EXPECT_LE(run.most_held[gpu], 4u);
    }
}

} // namespace
} // namespace aesgpu::test
